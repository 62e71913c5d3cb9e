package org.wharfmq.perf.flow;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;

import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.transform.stream.StreamSource;
import javax.xml.validation.SchemaFactory;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The broker workloads' input message at the spec's sizes. */
class SaleMessageTest {

    @Test
    void theOneKilobyteMessageIsTheFixtureItself() {
        assertEquals(1049, SaleMessage.ofSize(1024).length);
    }

    @Test
    void eachSizeComesWithinHalfASaleListOfItsTargetAndIsWellFormedWithItsLastElementLast() throws Exception {
        for (int target : new int[] {4096, 16384, 65536, 262144, 1048576}) {
            byte[] xml = SaleMessage.ofSize(target);
            assertTrue(Math.abs(xml.length - target) <= 520, target + " -> " + xml.length);
            Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(new ByteArrayInputStream(xml));
            int saleLists = doc.getElementsByTagName("SaleList").getLength();
            assertTrue(saleLists >= target / 1100, "SaleList is what repeats: " + saleLists + " at " + target);
            assertEquals(2 * saleLists, doc.getElementsByTagName("Invoice").getLength());
            assertEquals("Test", doc.getDocumentElement().getLastChild().getTextContent());
        }
        String text = new String(SaleMessage.ofSize(4096), StandardCharsets.UTF_8);
        assertTrue(text.contains("<Surname>Braithwaite</Surname>") && text.contains("<Surname>Braithwaite3</Surname>"),
                "repetitions differ");
    }

    /**
     * Where the shared fixtures are: {@code shared/fixtures} beside the repository, as CI has them (tests run in the
     * module's directory, one below the repository's). They are not part of the repository.
     */
    private static final Path SHARED_FIXTURES = Path.of("..", "..", "shared", "fixtures");

    /**
     * Skipped, saying so, where the schema is not there (a checkout without the shared fixtures): the build needs
     * nothing but the repository; CI, which has the fixtures, runs it.
     */
    @Test
    void theMessageStaysValidAgainstTheSchemaOfTheSharedFixtures() throws Exception {
        Path xsd = SHARED_FIXTURES.resolve("wmb-sale.xsd");
        assumeTrue(Files.isRegularFile(xsd), () -> "No schema at " + xsd.toAbsolutePath().normalize()
                + ": this test needs the shared fixtures (wmb-sale.xsd) in shared/fixtures beside the repository.");
        SchemaFactory.newInstance(XMLConstants.W3C_XML_SCHEMA_NS_URI).newSchema(xsd.toFile()).newValidator()
                .validate(new StreamSource(new ByteArrayInputStream(SaleMessage.ofSize(65536))));
    }
}
