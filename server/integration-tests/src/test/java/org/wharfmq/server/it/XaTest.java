package org.wharfmq.server.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.jms.WharfMessageConsumer;
import org.wharfmq.jms.WharfXAConnectionFactory;
import org.wharfmq.jms.jndi.WharfInitialContextFactory;
import org.wharfmq.jms.jndi.WharfObjectFactory;

import javax.jms.JMSContext;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.Queue;
import javax.jms.Session;
import javax.jms.TextMessage;
import javax.jms.TransactionInProgressException;
import javax.jms.TransactionInProgressRuntimeException;
import javax.jms.XAConnection;
import javax.jms.XAConnectionFactory;
import javax.jms.XAJMSContext;
import javax.jms.XASession;
import javax.naming.Context;
import javax.naming.InitialContext;
import javax.naming.Reference;
import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Hashtable;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The XA client against a real server, this test acting as the transaction manager: an XASession's work is part of a
 * branch that is invisible until committed (from any connection), rolled back on request, listed by recover() once
 * prepared; every refusal is an XAException with the errorCode XA says and a message naming the Xid. (The same under a
 * real transaction manager, with a database: jms-client/xa-tests; after a crash: store.XaRecoveryTest.)
 */
@Timeout(60)
class XaTest {

    @RegisterExtension
    static final WharfServerExtension WHARF = WharfServerExtension.withDefaults();

    private static final AtomicInteger XIDS = new AtomicInteger();

    /** An Xid as a transaction manager makes them; never a Wharf class. */
    record TestXid(int formatId, byte[] gtrid, byte[] bqual) implements Xid {
        static TestXid next() {
            return new TestXid(0x1234, ("xa-test-" + XIDS.incrementAndGet()).getBytes(StandardCharsets.UTF_8),
                    new byte[]{7});
        }

        @Override
        public int getFormatId() {
            return formatId;
        }

        @Override
        public byte[] getGlobalTransactionId() {
            return gtrid;
        }

        @Override
        public byte[] getBranchQualifier() {
            return bqual;
        }
    }

    private static XAConnection xaConnection() throws JMSException {
        XAConnection connection = new WharfXAConnectionFactory(WHARF.server().tcpUrl()).createXAConnection();
        WHARF.track(connection);
        connection.start();
        return connection;
    }

    private static XAException xaFails(int errorCode, XaCall call) {
        XAException e = assertThrows(XAException.class, call::run);
        assertEquals(errorCode, e.errorCode, e.getMessage());
        return e;
    }

    @FunctionalInterface
    interface XaCall {
        void run() throws Exception;
    }

    /**
     * One branch receives a request and sends a reply: prepared, neither is seen by anyone; another connection's
     * resource lists it in recover() and commits it: the reply appears, the request is gone.
     */
    @Test
    void aBranchSendsAndReceivesInvisiblyUntilAnotherConnectionCommitsIt() throws Exception {
        String in = WHARF.queueName("xa.in");
        String out = WHARF.queueName("xa.out");
        Send.texts(WHARF.connect(Transport.TCP), in, "request");
        XASession session = xaConnection().createXASession();
        XAResource resource = session.getXAResource();
        TestXid xid = TestXid.next();
        resource.start(xid, XAResource.TMNOFLAGS);
        MessageConsumer consumer = session.createConsumer(session.createQueue(in));
        assertEquals("request", Receive.nextText(consumer).getText());
        session.createProducer(session.createQueue(out)).send(session.createTextMessage("reply"));
        resource.end(xid, XAResource.TMSUCCESS);
        assertEquals(XAResource.XA_OK, resource.prepare(xid));
        consumer.close();

        Session other = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer requests = other.createConsumer(other.createQueue(in));
        MessageConsumer replies = other.createConsumer(other.createQueue(out));
        Receive.nothingMore(requests);
        Receive.nothingMore(replies);
        XAResource tm = xaConnection().createXASession().getXAResource();
        assertTrue(Arrays.stream(tm.recover(XAResource.TMSTARTRSCAN)).anyMatch(x -> sameXid(x, xid)));
        assertEquals(0, tm.recover(XAResource.TMENDRSCAN).length);
        tm.commit(xid, false);
        assertEquals("reply", Receive.nextText(replies).getText());
        Receive.nothingMore(requests);
        assertEquals(0, WHARF.depth(in));
        assertFalse(Arrays.stream(tm.recover(XAResource.TMSTARTRSCAN)).anyMatch(x -> sameXid(x, xid)));
    }

    /** Rolled back, a branch's send is gone and what it consumed comes back, redelivered. */
    @Test
    void aRolledBackBranchGivesBackWhatItConsumed() throws Exception {
        String in = WHARF.queueName("xa.rollback");
        Send.texts(WHARF.connect(Transport.VM), in, "m1");
        XASession session = xaConnection().createXASession();
        XAResource resource = session.getXAResource();
        TestXid xid = TestXid.next();
        resource.start(xid, XAResource.TMNOFLAGS);
        MessageConsumer consumer = session.createConsumer(session.createQueue(in));
        assertEquals("m1", Receive.nextText(consumer).getText());
        session.createProducer(session.createQueue(in)).send(session.createTextMessage("dropped"));
        resource.end(xid, XAResource.TMSUCCESS);
        resource.prepare(xid);
        resource.rollback(xid);
        consumer.close();
        Session other = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer again = other.createConsumer(other.createQueue(in));
        Message m1 = Receive.next(again);
        assertEquals("m1", ((TextMessage) m1).getText());
        assertTrue(m1.getJMSRedelivered());
        assertEquals(2, m1.getIntProperty("JMSXDeliveryCount"));
        Receive.nothingMore(again);
    }

    /**
     * {@code WharfMessageConsumer.awaitMessage} waits, outside any branch, until the consumer holds a message for its
     * next receive, and takes nothing: the message was handed to this consumer alone (another consumer of the queue
     * finds none), a branch begun afterwards receives it, and that branch's rollback gives it back, redelivered.
     */
    @Test
    void awaitMessageWaitsOutsideABranchForAMessageNoOtherConsumerGets() throws Exception {
        String in = WHARF.queueName("xa.await");
        XASession session = xaConnection().createXASession();
        WharfMessageConsumer consumer = (WharfMessageConsumer) session.createConsumer(session.createQueue(in));
        Send.texts(WHARF.connect(Transport.TCP), in, "m1");
        assertTrue(consumer.awaitMessage(10_000), "no message came");
        Session other = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer rival = other.createConsumer(other.createQueue(in));
        Receive.nothingMore(rival);
        XAResource resource = session.getXAResource();
        TestXid xid = TestXid.next();
        resource.start(xid, XAResource.TMNOFLAGS);
        assertEquals("m1", ((TextMessage) consumer.receiveNoWait()).getText());
        resource.end(xid, XAResource.TMSUCCESS);
        resource.rollback(xid);
        consumer.close();
        Message again = Receive.next(rival);
        assertEquals("m1", ((TextMessage) again).getText());
        assertTrue(again.getJMSRedelivered());
    }

    /**
     * Outside a branch an XASession acknowledges each message as AUTO_ACKNOWLEDGE does; it is transacted as far as
     * the application sees (commit and rollback are the transaction manager's); a branch that did nothing prepares
     * read-only and is forgotten.
     */
    @Test
    void outsideABranchTheSessionAcknowledgesAutomatically() throws Exception {
        String in = WHARF.queueName("xa.outside");
        Send.texts(WHARF.connect(Transport.TCP), in, "auto");
        XASession session = xaConnection().createXASession();
        assertTrue(session.getTransacted());
        assertEquals(Session.SESSION_TRANSACTED, session.getAcknowledgeMode());
        assertThrows(TransactionInProgressException.class, session::commit);
        assertThrows(TransactionInProgressException.class, session::rollback);
        MessageConsumer consumer = session.createConsumer(session.createQueue(in));
        assertEquals("auto", Receive.nextText(consumer).getText());
        Send.barrier(session); // the acknowledgement leaves with the barrier's frame
        assertEquals(0, WHARF.depth(in));
        XAResource resource = session.getXAResource();
        TestXid xid = TestXid.next();
        resource.start(xid, XAResource.TMNOFLAGS);
        resource.end(xid, XAResource.TMSUCCESS);
        assertEquals(XAResource.XA_RDONLY, resource.prepare(xid));
        xaFails(XAException.XAER_NOTA, () -> resource.commit(xid, false));
    }

    @Test
    void refusalsAreXaExceptionsWithXasErrorCodesNamingTheXid() throws Exception {
        XAConnection connection = xaConnection();
        XAResource first = connection.createXASession().getXAResource();
        XAResource second = connection.createXASession().getXAResource();
        TestXid unknown = TestXid.next();
        XAException notFound = xaFails(XAException.XAER_NOTA, () -> first.commit(unknown, true));
        assertTrue(notFound.getMessage().contains("gtrid=" + java.util.HexFormat.of().formatHex(unknown.gtrid)),
                notFound.getMessage());
        xaFails(XAException.XAER_NOTA, () -> first.forget(unknown));

        TestXid xid = TestXid.next();
        first.start(xid, XAResource.TMNOFLAGS);
        XAException duplicate = xaFails(XAException.XAER_DUPID, () -> second.start(xid, XAResource.TMNOFLAGS));
        assertTrue(duplicate.getMessage().contains("exists already"), duplicate.getMessage());
        XAException active = xaFails(XAException.XAER_PROTO, () -> second.commit(xid, true));
        assertTrue(active.getMessage().contains("associated"), active.getMessage());
        xaFails(XAException.XAER_PROTO, () -> first.start(TestXid.next(), XAResource.TMNOFLAGS));
        xaFails(XAException.XAER_INVAL, () -> first.end(xid, XAResource.TMJOIN));

        XAException failed = xaFails(XAException.XA_RBROLLBACK, () -> first.end(xid, XAResource.TMFAIL));
        assertTrue(failed.getMessage().contains("can only roll back"), failed.getMessage());
        XAException rolledBack = xaFails(XAException.XA_RBROLLBACK, () -> second.commit(xid, true));
        assertTrue(rolledBack.getMessage().contains("TMFAIL"), rolledBack.getMessage());
        xaFails(XAException.XAER_INVAL, () -> first.setTransactionTimeout(-1));
    }

    /** A transaction manager joins resources of one queue manager into one branch; others it keeps apart. */
    @Test
    void resourcesOfOneQueueManagerAreTheSameResourceManager() throws Exception {
        String out = WHARF.queueName("xa.join");
        XASession one = xaConnection().createXASession();
        XASession two = xaConnection().createXASession();
        assertTrue(one.getXAResource().isSameRM(two.getXAResource()));
        XAConnection inVm = new WharfXAConnectionFactory(WHARF.server().vmUrl()).createXAConnection();
        WHARF.track(inVm);
        assertFalse(one.getXAResource().isSameRM(inVm.createXASession().getXAResource()),
                "another address may be another queue manager: not joined");
        TestXid xid = TestXid.next();
        one.getXAResource().start(xid, XAResource.TMNOFLAGS);
        two.getXAResource().start(xid, XAResource.TMJOIN);
        one.createProducer(one.createQueue(out)).send(one.createTextMessage("one"));
        two.createProducer(two.createQueue(out)).send(two.createTextMessage("two"));
        one.getXAResource().end(xid, XAResource.TMSUCCESS);
        two.getXAResource().end(xid, XAResource.TMSUCCESS);
        one.getXAResource().commit(xid, true);
        Session other = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        assertEquals(List.of("one", "two"), Receive.texts(other.createConsumer(other.createQueue(out)), 2));
    }

    /** XAJMSContext: the simplified API's sends are the branch's too. */
    @Test
    void anXaContextSendsInTheBranch() throws Exception {
        String out = WHARF.queueName("xa.context");
        try (XAJMSContext context = new WharfXAConnectionFactory(WHARF.server().tcpUrl()).createXAContext()) {
            assertTrue(context.getTransacted());
            assertEquals(JMSContext.SESSION_TRANSACTED, context.getSessionMode());
            assertThrows(TransactionInProgressRuntimeException.class, context::commit);
            XAResource resource = context.getXAResource();
            TestXid xid = TestXid.next();
            resource.start(xid, XAResource.TMNOFLAGS);
            Queue queue = context.createQueue(out);
            context.getContext().createProducer().send(queue, "in the branch");
            resource.end(xid, XAResource.TMSUCCESS);
            assertEquals(XAResource.XA_OK, resource.prepare(xid));
            Session other = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer consumer = other.createConsumer(other.createQueue(out));
            Receive.nothingMore(consumer);
            resource.commit(xid, false);
            assertEquals("in the branch", Receive.nextText(consumer).getText());
        }
    }

    /** The XA factory is bound by the JNDI provider and survives a JNDI reference. */
    @Test
    void theXaFactoryIsBoundByJndiAndByReference() throws Exception {
        Hashtable<String, String> env = new Hashtable<>();
        env.put(Context.INITIAL_CONTEXT_FACTORY, WharfInitialContextFactory.class.getName());
        env.put(Context.PROVIDER_URL, WHARF.server().tcpUrl());
        env.put("xaConnectionFactory.Orders", WHARF.server().vmUrl());
        Context jndi = new InitialContext(env);
        assertInstanceOf(XAConnectionFactory.class, jndi.lookup("XAConnectionFactory"));
        assertFalse(jndi.lookup("ConnectionFactory") instanceof XAConnectionFactory);
        WharfXAConnectionFactory orders = assertInstanceOf(WharfXAConnectionFactory.class, jndi.lookup("Orders"));
        assertEquals(WHARF.server().vmUrl(), orders.getBrokerURL());
        Reference reference = orders.getReference();
        Object rebuilt = new WharfObjectFactory().getObjectInstance(reference, null, null, null);
        assertInstanceOf(WharfXAConnectionFactory.class, rebuilt);
        assertEquals(orders.getBrokerURL(), ((WharfConnectionFactory) rebuilt).getBrokerURL());
        XAConnection connection = ((XAConnectionFactory) rebuilt).createXAConnection();
        WHARF.track(connection);
        assertTrue(connection.createXASession().getTransacted());
    }

    private static boolean sameXid(Xid found, TestXid expected) {
        return found.getFormatId() == expected.formatId && Arrays.equals(found.getGlobalTransactionId(), expected.gtrid)
                && Arrays.equals(found.getBranchQualifier(), expected.bqual);
    }

    @Test
    void recoveredXidsEqualTheTransactionManagersOwn() throws Exception {
        XASession session = xaConnection().createXASession();
        XAResource resource = session.getXAResource();
        TestXid xid = TestXid.next();
        resource.start(xid, XAResource.TMNOFLAGS);
        session.createProducer(session.createQueue(WHARF.queueName("xa.equal"))).send(session.createTextMessage("x"));
        resource.end(xid, XAResource.TMSUCCESS);
        resource.prepare(xid);
        Xid found = Arrays.stream(resource.recover(XAResource.TMSTARTRSCAN | XAResource.TMENDRSCAN))
                .filter(x -> sameXid(x, xid)).findFirst().orElseThrow();
        assertArrayEquals(xid.gtrid, found.getGlobalTransactionId());
        assertTrue(found.equals(xid), "a recovered Xid equals any Xid of the same parts");
        resource.rollback(found);
    }
}
