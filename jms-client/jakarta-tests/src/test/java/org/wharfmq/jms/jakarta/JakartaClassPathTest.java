package org.wharfmq.jms.jakarta;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What makes this module's run a run against the jakarta client: the tests beside this one are the javax client's,
 * transformed, and they find the jakarta client and the Jakarta Messaging API, while neither the javax.jms API nor
 * the javax client nor the untransformed tests are on the class path. A transformed test that still named javax.jms
 * would fail with NoClassDefFoundError rather than test the javax client.
 */
class JakartaClassPathTest {

    @Test
    void theJavaxJmsApiIsNotThere() {
        // joined at run time: the transformer, which this class goes through too, renames the constant "javax.jms.…"
        String javaxMessage = String.join(".", "javax", "jms", "Message");
        assertThrows(ClassNotFoundException.class, () -> Class.forName(javaxMessage));
    }

    @Test
    void theClientIsTheJakartaOne() throws Exception {
        Class<?> factory = Class.forName("org.wharfmq.jms.WharfConnectionFactory");
        assertTrue(jakarta.jms.ConnectionFactory.class.isAssignableFrom(factory), factory + " is not a jakarta.jms.ConnectionFactory");
        assertTrue(codeSource(factory).getFileName().toString().startsWith("wharf-jakarta-client"), codeSource(factory).toString());
    }

    /** The tests are this module's transformed copies, not the classes of the javax client's test-jars. */
    @Test
    void theTestsAreTheTransformedCopies() throws Exception {
        Path testClasses = codeSource(JakartaClassPathTest.class);
        for (String test : new String[] {"org.wharfmq.jms.ConnectionTest", "org.wharfmq.server.it.JmsContextTest"}) {
            assertEquals(testClasses, codeSource(Class.forName(test)), test);
        }
    }

    private static Path codeSource(Class<?> type) throws Exception {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    }
}
