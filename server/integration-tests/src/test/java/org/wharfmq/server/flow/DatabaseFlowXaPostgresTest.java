package org.wharfmq.server.flow;

/**
 * The Database nodes' contract with the data source XA ({@code xa: true}) on a real PostgreSQL server
 * ({@link TestPostgres}, which allows prepared transactions): the flows using it are coordinated.
 */
class DatabaseFlowXaPostgresTest extends DatabaseFlowPostgresTest {

    @Override
    TestDatabase database() {
        return super.database().xa();
    }
}
