package org.wharfmq.protocol.selector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The request/reply selector {@code JMSCorrelationID = 'literal'} taken without the grammar compiles to what the
 * grammar makes of it, and every other spelling, valid or not, is left to the grammar.
 */
class CorrelationIdSelectorTest {

    @Test
    void thePlainSpellingsCompileAsTheGrammarCompilesThem() throws SelectorParseException {
        for (String text : List.of("JMSCorrelationID = 'ID:abc:17'", "JMSCorrelationID='x'", " \tJMSCorrelationID\n=\r'a b' \f",
                "JMSCorrelationID = ''", "JMSCorrelationID = 'AND OR = ('", "JMSCorrelationID = 'é€'")) {
            assertNotNull(CorrelationIdSelector.literalOf(text), text);
            Selector fast = Selector.parse(text);
            Selector grammar = Selector.parseGrammar(text);
            assertEquals(grammar.root(), fast.root(), text);
            assertEquals(grammar.requiredCorrelationId(), fast.requiredCorrelationId(), text);
            assertEquals(text, fast.text());
            assertFalse(fast.matchesAll());
        }
    }

    @Test
    void itSelectsExactlyTheCorrelationId() throws SelectorParseException {
        Selector selector = Selector.parse("JMSCorrelationID = 'ID:abc:17'");
        assertTrue(selector.matches(MapContext.of("JMSCorrelationID", "ID:abc:17")));
        assertFalse(selector.matches(MapContext.of("JMSCorrelationID", "ID:abc:1")));
        assertFalse(selector.matches(MapContext.of("JMSCorrelationID", null)));
        assertEquals("ID:abc:17", selector.requiredCorrelationId());
    }

    @Test
    void everyOtherSpellingIsTheGrammars() throws SelectorParseException {
        for (String text : List.of("JMSCorrelationID = 'it''s'", "'x' = JMSCorrelationID", "JMSCorrelationID = 'x' AND a = 1",
                "(JMSCorrelationID = 'x')", "jmscorrelationid = 'x'", "JMSCorrelationIDx = 'x'", "JMSCorrelationID <> 'x'",
                "JMSCorrelationID == 'x'", "JMSCorrelationID = 'x' 'y'", "JMSCorrelationID = x", "JMSMessageID = 'x'")) {
            assertNull(CorrelationIdSelector.literalOf(text), text);
        }
        assertEquals("it's", Selector.parse("JMSCorrelationID = 'it''s'").requiredCorrelationId());
        assertEquals("x", Selector.parse("'x' = JMSCorrelationID").requiredCorrelationId());
    }

    @Test
    void brokenSpellingsAreStillRefusedByTheGrammar() {
        for (String text : List.of("JMSCorrelationID = 'x", "JMSCorrelationID = 'x' 'y'", "JMSCorrelationID == 'x'",
                "JMSCorrelationID = 'x' AND")) {
            assertNull(CorrelationIdSelector.literalOf(text), text);
            assertThrows(SelectorParseException.class, () -> Selector.parse(text), text);
        }
    }
}
