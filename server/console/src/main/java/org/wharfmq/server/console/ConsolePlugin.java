package org.wharfmq.server.console;

import org.wharfmq.server.ServerPlugin;
import org.wharfmq.server.admin.AdminPlugin;
import org.wharfmq.server.http.HttpAnswer;
import org.wharfmq.server.http.HttpPlugin;
import org.wharfmq.server.http.HttpRoutes;
import org.wharfmq.server.security.Permission;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * The web console, a {@link ServerPlugin}: registers on the HTTP listener's routes the page at {@code /}, its scripts
 * and styles under {@value #STATIC_PREFIX}, uPlot (from its WebJar) under {@value #UPLOT_PREFIX}, and the JSON API under
 * {@code /api/} ({@link ConsoleApi}), which runs the admin plugin's commands: what the page shows and does is what
 * {@code wharf admin} shows and does, in the same JSON. Start it after the admin plugin and before the HTTP plugin:
 * <pre>{@code
 * AdminPlugin admin = new AdminPlugin(flows.adminCommands());
 * HttpPlugin http = new HttpPlugin();
 * WharfServer.builder(config).plugins(flows, admin, new ConsolePlugin(http, admin), http).start();
 * }</pre>
 * Without an {@code http:} block the routes are there but nothing listens. Seeing needs the {@code monitor}
 * permission, acting (and browsing messages) {@code admin}; docs/operations.md, "Web console", says how the pages are
 * kept safe from other sites and from what messages hold.
 */
public final class ConsolePlugin implements ServerPlugin {

    /** Where the page's own scripts and styles are served. */
    static final String STATIC_PREFIX = "/console/";
    /** Where they are on the class path. */
    static final String STATIC_ROOT = "org/wharfmq/server/console/static/";
    /** Where uPlot's files are served. */
    static final String UPLOT_PREFIX = "/console/uplot/";
    /** Where uPlot's WebJar keeps them: its version is the parent POM's {@code uplot.version}. */
    static final String UPLOT_ROOT = "META-INF/resources/webjars/uplot/1.6.30/dist/";
    private static final String PAGE = STATIC_ROOT + "index.html";
    private static final String HTML = "text/html; charset=utf-8";

    private final HttpRoutes routes;
    private final AdminPlugin admin;
    private final List<HttpRoutes.Registration> registrations = new ArrayList<>();

    /**
     * @param http  the HTTP listener to serve on
     * @param admin the admin plugin whose commands the console runs (started before this one)
     */
    public ConsolePlugin(HttpPlugin http, AdminPlugin admin) {
        this.routes = http.routes();
        this.admin = admin;
    }

    @Override
    public void start(Host server) throws IOException {
        if (!registrations.isEmpty()) {
            throw new IllegalStateException("This ConsolePlugin has started already: give each server one of its own.");
        }
        ClassLoader loader = ConsolePlugin.class.getClassLoader();
        byte[] page = resource(loader, PAGE);
        resource(loader, UPLOT_ROOT + "uPlot.iife.min.js"); // fails the start, not the page, when the WebJar is missing
        registrations.add(routes.get("/", Permission.MONITOR, call -> new HttpAnswer(200, HTML, page)));
        registrations.add(routes.resources(STATIC_PREFIX, Permission.MONITOR, loader, STATIC_ROOT));
        registrations.add(routes.resources(UPLOT_PREFIX, Permission.MONITOR, loader, UPLOT_ROOT));
        registrations.addAll(new ConsoleApi(admin, server.accessControl()).register(routes));
    }

    private static byte[] resource(ClassLoader loader, String name) throws IOException {
        try (InputStream in = loader.getResourceAsStream(name)) {
            if (in == null) {
                throw new IOException("The web console's file " + name + " is not on the class path: the "
                        + "wharf-console jar or uPlot's WebJar (org.webjars.npm:uplot) is missing or of another version.");
            }
            return in.readAllBytes();
        }
    }

    @Override
    public void close() {
        registrations.forEach(HttpRoutes.Registration::close);
        registrations.clear();
    }
}
