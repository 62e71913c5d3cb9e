package org.wharfmq.server.http;

import java.io.IOException;
import java.io.InputStream;
import java.util.Map;

/** Serves files from the class path under a path prefix ({@link HttpRoutes#resources}). */
final class ClasspathResources implements HttpHandler {

    /** The content types of the files served, by extension; other files are not served. */
    private static final Map<String, String> TYPES = Map.of(
            "html", "text/html; charset=utf-8",
            "js", "text/javascript; charset=utf-8",
            "css", "text/css; charset=utf-8",
            "json", HttpAnswer.JSON,
            "svg", "image/svg+xml",
            "png", "image/png",
            "ico", "image/x-icon",
            "txt", HttpAnswer.TEXT,
            "map", HttpAnswer.JSON);

    private final String prefix;
    private final ClassLoader loader;
    private final String root;

    ClasspathResources(String prefix, ClassLoader loader, String root) {
        this.prefix = prefix;
        this.loader = loader;
        this.root = root;
    }

    @Override
    public HttpAnswer handle(HttpCall call) throws IOException {
        String file = call.path().substring(prefix.length());
        int dot = file.lastIndexOf('.');
        String type = dot < 0 ? null : TYPES.get(file.substring(dot + 1));
        if (type == null || file.startsWith("/") || file.contains("..") || file.contains("//") || file.contains("\\")) {
            throw notFound(call);
        }
        try (InputStream in = loader.getResourceAsStream(root + file)) {
            if (in == null) {
                throw notFound(call);
            }
            return new HttpAnswer(200, type, in.readAllBytes());
        }
    }

    private static HttpRefusal notFound(HttpCall call) {
        return new HttpRefusal(404, "No file at '" + call.path() + "'.");
    }
}
