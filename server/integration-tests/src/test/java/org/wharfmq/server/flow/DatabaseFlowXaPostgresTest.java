package org.wharfmq.server.flow;

import org.junit.jupiter.api.Tag;

/**
 * The Database nodes' contract with the data source XA ({@code xa: true}) on a real PostgreSQL server
 * ({@link TestPostgres}, which allows prepared transactions): the flows using it are coordinated. Slow: each test's
 * server start runs the transaction manager's recovery scan (its two passes a second apart) against PostgreSQL;
 * {@link DatabaseFlowXaH2Test} is the quick one.
 */
@Tag("slow")
class DatabaseFlowXaPostgresTest extends DatabaseFlowPostgresTest {

    @Override
    TestDatabase database() {
        return super.database().xa();
    }
}
