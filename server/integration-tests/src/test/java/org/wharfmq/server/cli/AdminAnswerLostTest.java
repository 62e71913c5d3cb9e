package org.wharfmq.server.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.admin.AdminCommand;
import org.wharfmq.server.admin.AdminCommands;
import org.wharfmq.server.admin.AdminPlugin;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An admin command whose server drops its connection before answering, as a replicated queue manager's member does
 * when it stops being active ({@link WharfServer#disconnectClients}): the command fails at once, naming the server and
 * how to find the active member, instead of reconnecting to a member that serves no clients and waiting for an answer
 * that will not come (a reconnecting client waited the whole reply timeout, 120 s, which this test's limit is under).
 */
class AdminAnswerLostTest {

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aCommandWhoseConnectionIsLostFailsAtOnceNamingTheServerAndWhatToDo() throws Exception {
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AdminCommand hold = request -> {
            running.countDown();
            release.await(); // answered only once the test has seen the client fail
            return "held";
        };
        try (TestServer test = TestServer.start(c -> c, config -> WharfServer.start(config,
                new AdminPlugin((AdminCommands) () -> Map.of("hold", hold))))) {
            String url = test.server().tcpUrl();
            try (AdminClient client = AdminClient.connect(url, new WharfConnectionFactory(url))) {
                CompletableFuture<AdminClient.Reply> reply = CompletableFuture.supplyAsync(() -> {
                    try {
                        return client.send("hold", Map.of());
                    } catch (Exception e) {
                        throw new java.util.concurrent.CompletionException(e);
                    }
                });
                assertTrue(running.await(30, TimeUnit.SECONDS), "the command never ran");
                test.server().disconnectClients();
                ExecutionException failed = assertThrows(ExecutionException.class, reply::get);
                AdminClient.AnswerLost lost = assertInstanceOf(AdminClient.AnswerLost.class, failed.getCause());
                assertTrue(lost.getMessage().startsWith("the connection to " + url + " was lost before the answer to "
                        + "'hold' came"), lost.getMessage());
                assertTrue(lost.getMessage().contains("may or may not have been carried out"), lost.getMessage());
                assertTrue(lost.getMessage().contains("display server"), lost.getMessage());
            } finally {
                release.countDown();
            }
        }
    }
}
