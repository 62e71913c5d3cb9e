package org.wharfmq.server.channels;

import org.junit.jupiter.api.Test;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.protocol.message.WireMessage;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What the hierarchy's members tell each other of their ancestors and of the way a publication went. */
class HierarchyMessagesTest {

    @Test
    void aSetTellsTheAncestorsUpToTheLimitAndOneWithoutThemTellsNothing() {
        WireMessage set = HierarchyMessages.subscriptionSet("QM3", WireDestination.queue("Q"), List.of("a/#"));
        assertNull(HierarchyMessages.ancestors(set.properties), "a member that predates them tells nothing");
        HierarchyMessages.withAncestors(set, List.of("QM2", "QM1"));
        assertEquals(List.of("QM2", "QM1"), HierarchyMessages.ancestors(set.properties));
        HierarchyMessages.withAncestors(set, List.of());
        assertEquals(List.of(), HierarchyMessages.ancestors(set.properties), "a root");

        List<String> deep = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            deep.add("QM" + i);
        }
        set.properties.put(HierarchyMessages.ANCESTORS, String.join("/", deep) + "/");
        assertEquals(deep.subList(0, HierarchyMessages.MAX_ANCESTORS), HierarchyMessages.ancestors(set.properties),
                "a partner's long list is read no further than the limit");
    }

    @Test
    void aForwardedPublicationNamesTheMembersThatForwardedItAndNoOther() {
        WireMessage publication = new WireMessage();
        publication.destination = WireDestination.topic("prices/gold");
        HierarchyMessages.forwarded(publication, "QM1", "QM2");
        publication.destination = WireDestination.topic("prices/gold"); // as QM2 publishes it
        HierarchyMessages.forwarded(publication, "QM2", "QM3");
        assertEquals("/QM1/QM2/", publication.properties.get(HierarchyMessages.PATH));
        assertTrue(HierarchyMessages.passed(publication.properties, "QM1"));
        assertTrue(HierarchyMessages.passed(publication.properties, "QM2"));
        assertFalse(HierarchyMessages.passed(publication.properties, "QM3"));
        assertFalse(HierarchyMessages.passed(publication.properties, "QM"), "a name, not a part of one");
    }
}
