package example;

import org.wharfmq.jms.WharfConnectionFactory;

import javax.jms.Connection;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.Queue;
import javax.jms.Session;
import javax.jms.TextMessage;

/**
 * An application of the one-jar client, as someone without Maven writes one (PlainJarIT runs it with
 * {@code java -cp wharf-client-all.jar:app.jar example.PingApp URL QUEUE}): sends a message to a queue, takes it back
 * with a selector, and says what it got through which API. Exits 1 if nothing came back.
 */
public final class PingApp {

    private PingApp() {
    }

    public static void main(String[] args) throws JMSException {
        try (Connection connection = new WharfConnectionFactory(args[0]).createConnection()) {
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Queue queue = session.createQueue(args[1]);
            TextMessage ping = session.createTextMessage("ping");
            ping.setStringProperty("sender", "PingApp");
            session.createProducer(queue).send(ping);
            TextMessage received = (TextMessage) session.createConsumer(queue, "sender = 'PingApp'").receive(10_000);
            if (received == null) {
                System.out.println("nothing came back from " + args[1] + " within 10 s");
                System.exit(1);
            }
            System.out.println("received '" + received.getText() + "' through " + Message.class.getPackageName());
        }
    }
}
