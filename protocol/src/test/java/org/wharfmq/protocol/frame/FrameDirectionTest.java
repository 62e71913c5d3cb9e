package org.wharfmq.protocol.frame;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * The compiler checks that the server handles every {@link Frame.FromClient} and the client every
 * {@link Frame.FromServer}; what it cannot check is that every frame a side sends is declared so. A client frame not
 * declared {@code FromClient} would compile and then be refused by the server as "sent by the server, never by a
 * client" (and the same the other way). So this test holds the records against the direction column of
 * docs/protocol.md, the protocol's definition.
 */
class FrameDirectionTest {

    private static final Pattern ROW = Pattern.compile("^\\| (\\d+) \\| ([A-Z_]+) \\| (C→S|S→C|both) \\|", Pattern.MULTILINE);

    @Test
    void exactlyTheFramesAClientSendsAreFromClientAndTheServersFromServer() throws Exception {
        Map<String, String> directions = new HashMap<>();
        Matcher row = ROW.matcher(Files.readString(Path.of("../docs/protocol.md")));
        while (row.find()) {
            directions.put(row.group(2), row.group(3));
        }
        assertEquals(FrameType.values().length, directions.size(), "docs/protocol.md lists every frame type once");
        List<Class<?>> records = List.of(Frame.class.getPermittedSubclasses()).stream()
                .flatMap(c -> List.of(c.getPermittedSubclasses()).stream())
                .distinct()
                .toList();
        assertEquals(FrameType.values().length, records.size(), "one record per frame type");
        for (Class<?> record : records) {
            String type = record.getSimpleName().replaceAll("([a-z])([A-Z])", "$1_$2").toUpperCase();
            String direction = directions.get(type);
            assertNotNull(direction, record + " is " + type + " in docs/protocol.md");
            assertEquals(!direction.equals("S→C"), Frame.FromClient.class.isAssignableFrom(record),
                    record.getSimpleName() + " goes " + direction + ", so it is "
                            + (direction.equals("S→C") ? "not " : "") + "a Frame.FromClient");
            assertEquals(!direction.equals("C→S"), Frame.FromServer.class.isAssignableFrom(record),
                    record.getSimpleName() + " goes " + direction + ", so it is "
                            + (direction.equals("C→S") ? "not " : "") + "a Frame.FromServer");
        }
    }
}
