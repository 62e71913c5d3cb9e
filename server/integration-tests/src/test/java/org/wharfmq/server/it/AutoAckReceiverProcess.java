package org.wharfmq.server.it;

import org.wharfmq.jms.WharfConnectionFactory;

import javax.jms.Connection;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.Session;
import java.io.PrintStream;
import java.util.List;

/**
 * A JMS receiver in a process of its own, for {@link AutoAcknowledgeKillTest} to kill with SIGKILL: receives from a
 * queue with AUTO_ACKNOWLEDGE and prints each message's {@code index} property, one line per message, as soon as
 * {@code receive} has handed it out. Arguments: the server's URL and the queue.
 */
public final class AutoAckReceiverProcess {

    private AutoAckReceiverProcess() {
    }

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(System.out, false, "UTF-8");
        try (Connection connection = new WharfConnectionFactory(args[0]).createConnection()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer consumer = session.createConsumer(session.createQueue(args[1]));
            connection.start();
            out.println("receiving");
            out.flush();
            for (Message m; (m = consumer.receive(60_000)) != null; ) {
                out.println(m.getIntProperty("index"));
                out.flush();
            }
        }
    }

    /** Starts it against {@code url}'s {@code queue}: this JVM's java, class path and --add-opens flags. */
    static Process start(String url, String queue) throws Exception {
        List<String> command = ChildJvm.command(AutoAckReceiverProcess.class, List.of("-XX:TieredStopAtLevel=1"),
                List.of(url, queue));
        return new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }
}
