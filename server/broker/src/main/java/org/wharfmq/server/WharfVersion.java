package org.wharfmq.server;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** The version of this build, as Maven recorded it in the broker's jar; "development" when run from compiled classes. */
public final class WharfVersion {

    private static final String POM_PROPERTIES = "/META-INF/maven/org.wharfmq/wharf-broker/pom.properties";
    private static final String VERSION = read();

    private WharfVersion() {
    }

    /** The version string, e.g. {@code 0.1.0-SNAPSHOT}. */
    public static String current() {
        return VERSION;
    }

    private static String read() {
        try (InputStream in = WharfVersion.class.getResourceAsStream(POM_PROPERTIES)) {
            if (in != null) {
                Properties p = new Properties();
                p.load(in);
                return p.getProperty("version", "development");
            }
        } catch (IOException e) {
            // fall through: an unreadable jar entry is no reason to fail startup
        }
        return "development";
    }
}
