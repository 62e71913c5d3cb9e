package org.wharfmq.server.flow;


import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.UUID;

/** A database the flow tests run against: where it is, and a connection for the test's own checks. */
interface TestDatabase extends AutoCloseable {

    /** The JDBC URL. */
    String url();

    /** Its user. */
    String user();

    /** The user's password. */
    String password();

    /** The data source the flow host gets for it. */
    default DataSourceConfig dataSource(String name) {
        return new DataSourceConfig(name, url(), user(), password());
    }

    /** A connection for the test itself (auto-commit). */
    default Connection connect() throws SQLException {
        return DriverManager.getConnection(url(), user(), password());
    }

    @Override
    default void close() {
    }

    /** This database with its data sources XA ({@code xa: true}): the flows using them are coordinated. */
    default TestDatabase xa() {
        TestDatabase local = this;
        return new TestDatabase() {
            public String url() {
                return local.url();
            }

            public String user() {
                return local.user();
            }

            public String password() {
                return local.password();
            }

            @Override
            public DataSourceConfig dataSource(String name) {
                return local.dataSource(name).withXa(true);
            }

            @Override
            public void close() {
                local.close();
            }

            @Override
            public String toString() {
                return local + " (XA)";
            }
        };
    }

    /** A new in-memory H2 database, alive until the JVM ends. */
    static TestDatabase h2() {
        String url = "jdbc:h2:mem:wharf-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
        return new TestDatabase() {
            public String url() {
                return url;
            }

            public String user() {
                return "sa";
            }

            public String password() {
                return "";
            }

            @Override
            public String toString() {
                return "H2";
            }
        };
    }
}
