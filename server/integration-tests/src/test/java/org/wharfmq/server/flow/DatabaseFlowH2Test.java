package org.wharfmq.server.flow;

/** The Database nodes against an embedded H2 database. */
class DatabaseFlowH2Test extends DatabaseFlowContract {

    @Override
    TestDatabase database() {
        return TestDatabase.h2();
    }
}
