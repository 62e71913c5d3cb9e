package org.wharfmq.jms.jakarta;

import jakarta.jms.ConnectionFactory;
import jakarta.jms.Queue;
import org.junit.jupiter.api.Test;

import javax.naming.Context;
import javax.naming.InitialContext;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Hashtable;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The jakarta client's jar as the Eclipse Transformer made it: nothing in it names javax.jms any more (classes, their
 * constants and attributes, resources), it has every class of the javax client under the same name, and its connection
 * factory and JNDI factory are Jakarta Messaging ones. The behaviour is the javax client's test suite, run against
 * this jar in jms-client/jakarta-tests.
 */
class JakartaJarIT {

    private static final Path JAKARTA_JAR = Path.of(System.getProperty("wharf.jakartaClientJar"));
    private static final Path JAVAX_JAR = Path.of(System.getProperty("wharf.javaxClientJar"));
    /** How a class file (a descriptor, a class name) and a resource (a service file, a string) name the javax API. */
    private static final List<byte[]> JAVAX_JMS = List.of(bytes("javax/jms"), bytes("javax.jms"));
    /** Maven's record of how the jar was built (its pom, with its comments): no code or resource the client reads. */
    private static final String MAVEN_METADATA = "META-INF/maven/";

    @Test
    void nothingInTheJarNamesJavaxJms() throws IOException {
        assertEquals(List.of(), entriesNamingJavaxJms(JAKARTA_JAR), JAKARTA_JAR + ": these entries still name javax.jms. "
                + "The Eclipse Transformer does not rename the component types of a record (its Record attribute): "
                + "make such a type a final class, or rename what the transformer's rules miss (jakarta-renames.properties)");
    }

    /** The check above can fail: the same scan finds javax.jms all over the javax client. */
    @Test
    void theJavaxClientFailsTheSameCheck() throws IOException {
        List<String> offenders = entriesNamingJavaxJms(JAVAX_JAR);
        assertTrue(offenders.contains("org/wharfmq/jms/WharfConnectionFactory.class"), offenders.toString());
    }

    @Test
    void everyClassOfTheJavaxClientIsThereUnderItsName() throws IOException {
        Set<String> javax = classNames(JAVAX_JAR);
        assertTrue(javax.contains("org/wharfmq/jms/jndi/WharfInitialContextFactory.class"), javax.toString());
        assertEquals(javax, classNames(JAKARTA_JAR));
    }

    /** The jar's own classes (on this test's class path, the javax client not) through JNDI, as an application reads them. */
    @Test
    void theJndiFactoryBindsJakartaMessagingObjects() throws Exception {
        Hashtable<String, Object> environment = new Hashtable<>();
        environment.put(Context.INITIAL_CONTEXT_FACTORY, "org.wharfmq.jms.jndi.WharfInitialContextFactory");
        environment.put("connectionFactory.Orders", "tcp://mq2:7500?prefetch=10");
        environment.put("queue.OrdersIn", "ORDERS.IN");
        Context context = new InitialContext(environment);
        ConnectionFactory factory = assertInstanceOf(ConnectionFactory.class, context.lookup("Orders"));
        assertEquals("org.wharfmq.jms.WharfConnectionFactory", factory.getClass().getName());
        assertEquals(Path.of(factory.getClass().getProtectionDomain().getCodeSource().getLocation().toURI()), JAKARTA_JAR);
        assertEquals("ORDERS.IN", assertInstanceOf(Queue.class, context.lookup("OrdersIn")).getQueueName());
        assertInstanceOf(Queue.class, context.lookup("dynamicQueues/ANY.Q"));
    }

    private static List<String> entriesNamingJavaxJms(Path jar) throws IOException {
        List<String> offenders = new ArrayList<>();
        try (ZipInputStream in = new ZipInputStream(Files.newInputStream(jar))) {
            for (ZipEntry entry; (entry = in.getNextEntry()) != null; ) {
                if (!entry.isDirectory() && !entry.getName().startsWith(MAVEN_METADATA) && namesJavaxJms(in)) {
                    offenders.add(entry.getName());
                }
            }
        }
        return offenders;
    }

    /** Class files keep names as (modified) UTF-8 constants, which for these ASCII names are their plain bytes. */
    private static boolean namesJavaxJms(InputStream entry) throws IOException {
        byte[] content = entry.readAllBytes();
        return JAVAX_JMS.stream().anyMatch(name -> indexOf(content, name) >= 0);
    }

    private static int indexOf(byte[] content, byte[] name) {
        outer:
        for (int i = 0; i <= content.length - name.length; i++) {
            for (int j = 0; j < name.length; j++) {
                if (content[i + j] != name[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    private static Set<String> classNames(Path jar) throws IOException {
        Set<String> names = new TreeSet<>();
        try (ZipInputStream in = new ZipInputStream(Files.newInputStream(jar))) {
            for (ZipEntry entry; (entry = in.getNextEntry()) != null; ) {
                if (entry.getName().endsWith(".class")) {
                    names.add(entry.getName());
                }
            }
        }
        return names;
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }
}
