package org.wharfmq.server.flow;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The Database nodes against a real PostgreSQL server ({@link TestPostgres}). */
class DatabaseFlowPostgresTest extends DatabaseFlowContract {

    private static TestPostgres postgres;

    @BeforeAll
    static void startPostgres() throws Exception {
        postgres = TestPostgres.start();
    }

    @AfterAll
    static void stopPostgres() {
        if (postgres != null) {
            postgres.close();
        }
    }

    @Override
    TestDatabase database() {
        return new TestDatabase() { // the tables are made anew by each test; the server stays for the class
            public String url() {
                return postgres.url();
            }

            public String user() {
                return postgres.user();
            }

            public String password() {
                return postgres.password();
            }
        };
    }
}
