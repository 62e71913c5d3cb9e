package org.wharfmq.perf.options;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PerfOptionsTest {

    @Test
    void defaultsAreJmsPerfHarnessDefaultsExceptTheProvider() {
        PerfOptions o = PerfOptions.parse();
        assertEquals(TestClass.PUT_GET, o.testClass());
        assertEquals(1, o.threads());
        assertEquals(60, o.runLengthSeconds());
        assertEquals(1000, o.messageSize());
        assertEquals(MessageType.TEXT, o.messageType());
        assertFalse(o.persistent());
        assertFalse(o.transacted());
        assertEquals(1, o.commitCount());
        assertEquals("REQUEST", o.requestQueue());
        assertEquals("REPLY", o.replyQueue());
        assertEquals(5, o.timeoutSeconds());
        assertEquals(10, o.statsIntervalSeconds());
        assertEquals(0, o.warmupSeconds());
        assertTrue(o.summary());
        assertFalse(o.usesJndi());
        assertEquals("tcp://localhost:7414", o.brokerUrl());
    }

    @Test
    void everyOptionIsParsed() {
        PerfOptions o = PerfOptions.parse("-tc", "jms.r11.Requestor", "-nt", "8", "-rl", "30", "-ms", "2048", "-mt", "bytes",
                "-pp", "true", "-tx", "true", "-cc", "10", "-d", "CELL", "-db", "2", "-dx", "5", "-dn", "3", "-iq", "IN",
                "-oq", "OUT", "-co", "true", "-to", "7", "-rt", "150.5", "-ss", "2", "-sw", "5", "-su", "false",
                "-pc", "JNDI", "-jf", "jndi.properties", "-ii", "com.example.Factory", "-iu", "tcp://mq:1",
                "-cf", "MyCF", "-url", "vm://x", "-id", "client1", "-jo", "out.json", "-xs", "true");
        assertEquals(TestClass.REQUESTOR, o.testClass());
        assertEquals(8, o.threads());
        assertEquals(30, o.runLengthSeconds());
        assertEquals(2048, o.messageSize());
        assertEquals(MessageType.BYTES, o.messageType());
        assertTrue(o.persistent());
        assertTrue(o.transacted());
        assertEquals(10, o.commitCount());
        assertEquals("CELL", o.destinationPrefix());
        assertEquals("CELL3", o.destinations().nameFor("CELL", 0), "-db 2 -dx 5 -dn 3 starts at CELL3");
        assertEquals("IN", o.requestQueue());
        assertEquals("OUT", o.replyQueue());
        assertTrue(o.correlationIdPerThread());
        assertEquals(7, o.timeoutSeconds());
        assertEquals(150.5, o.rate());
        assertEquals(2, o.statsIntervalSeconds());
        assertEquals(5, o.warmupSeconds());
        assertFalse(o.summary());
        assertTrue(o.usesJndi());
        assertEquals("jndi.properties", o.jndiPropertiesFile());
        assertEquals("com.example.Factory", o.jndiInitialContextFactory());
        assertEquals("tcp://mq:1", o.jndiProviderUrl());
        assertEquals("MyCF", o.jndiConnectionFactory());
        assertEquals("vm://x", o.brokerUrl());
        assertEquals("client1", o.processId());
        assertEquals("out.json", o.jsonOutput());
        assertTrue(o.stopOnStdinClose());
        assertEquals(o.toArgs(), PerfOptions.parse(o.toArgs().toArray(String[]::new)).toArgs(), "toArgs parses back");
    }

    @Test
    void everyTestClassNameIsAccepted() {
        for (TestClass t : TestClass.values()) {
            assertEquals(t, PerfOptions.parse("-tc", t.harnessName()).testClass());
            assertEquals(t, PerfOptions.parse("-tc", t.harnessName().substring("jms.r11.".length())).testClass());
        }
        assertThrows(OptionException.class, () -> PerfOptions.parse("-tc", "jms.r11.Nothing"));
    }

    @Test
    void aBooleanOptionAloneMeansTrue() {
        PerfOptions o = PerfOptions.parse("-pp", "-tx", "-nt", "3");
        assertTrue(o.persistent());
        assertTrue(o.transacted());
        assertEquals(3, o.threads());
    }

    @Test
    void emptyReplyQueueMeansTemporaryQueues() {
        assertEquals("", PerfOptions.parse("-oq", "").replyQueue());
    }

    @Test
    void sizesAcceptKilobytesAndMegabytes() {
        assertEquals(2048, PerfOptions.parse("-ms", "2k").messageSize());
        assertEquals(204800, PerfOptions.parse("-ms", "200K").messageSize());
        assertEquals(2097152, PerfOptions.parse("-ms", "2m").messageSize());
    }

    @Test
    void badCommandLinesAreRejectedNamingTheOption() {
        assertMessage("-zz", "-zz");
        assertMessage("-nt", "-nt", "0");
        assertMessage("-nt", "-nt", "many");
        assertMessage("-rl", "-rl", "-1");
        assertMessage("-pp", "-pp", "perhaps");
        assertMessage("-mt", "-mt", "map");
        assertMessage("-cc", "-cc", "0");
        assertMessage("-to", "-to", "0");
        assertMessage("-rt", "-rt", "-5");
        assertMessage("-sw", "-rl", "5", "-sw", "5");
        assertMessage("-pc", "-pc", "Tibco");
        assertMessage("-ii", "-pc", "JNDI");
        assertMessage("-ms", "-ms");
        assertMessage("-dx", "-db", "5", "-dx", "2");
        assertMessage("stray", "stray");
    }

    private static void assertMessage(String expected, String... args) {
        OptionException e = assertThrows(OptionException.class, () -> PerfOptions.parse(args));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }

    @Test
    void destinationsFollowJmsPerfHarnessExamples() {
        assertTrue(new DestinationNames(0, 0, 0).single());
        assertEquals("CELL", new DestinationNames(0, 0, 0).nameFor("CELL", 5));
        assertNames(new DestinationNames(0, 0, 3), "CELL1", "CELL2", "CELL3", "CELL1");
        assertNames(new DestinationNames(6, 0, 3), "CELL6", "CELL7", "CELL8", "CELL6");
        assertNames(new DestinationNames(0, 6, 3), "CELL4", "CELL5", "CELL6", "CELL4");
        assertNames(new DestinationNames(4, 6, 5), "CELL5", "CELL6", "CELL4", "CELL5");
        assertEquals(3, new DestinationNames(4, 6, 5).count());
    }

    private static void assertNames(DestinationNames names, String... expected) {
        for (int i = 0; i < expected.length; i++) {
            assertEquals(expected[i], names.nameFor("CELL", i), "thread " + i);
        }
    }

    @Test
    void pubSubOptionsAreParsedAndChecked() {
        PerfOptions d = PerfOptions.parse("-tc", "jms.r11.Subscriber");
        assertEquals(1, d.threadsPerConnection(), "a connection per thread unless told otherwise");
        assertFalse(d.durable());
        assertEquals(0, d.dummySubscriptions());
        assertEquals(0, d.flowWindow(), "no flow window unless told");
        assertEquals("", d.flowQueue(), "a publisher publishes on its topic unless told to go through a flow");
        PerfOptions o = PerfOptions.parse("-tc", "jms.r11.Publisher", "-sc", "25", "-du", "-dd", "1000", "-fw", "500", "-fp", "3",
                "-fq", "F.PUB.IN");
        assertEquals("F.PUB.IN", o.flowQueue());
        assertEquals(25, o.threadsPerConnection());
        assertTrue(o.durable());
        assertEquals(1000, o.dummySubscriptions());
        assertEquals(500, o.flowWindow());
        assertEquals(3, o.progressProcesses());
        assertTrue(assertThrows(OptionException.class, () -> PerfOptions.parse("-sc", "0")).getMessage().contains("-sc"));
        assertTrue(assertThrows(OptionException.class, () -> PerfOptions.parse("-dd", "-1")).getMessage().contains("-dd"));
        assertTrue(assertThrows(OptionException.class, () -> PerfOptions.parse("-fp", "0")).getMessage().contains("-fp"));
    }
}
