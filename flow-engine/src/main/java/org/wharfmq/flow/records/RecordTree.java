package org.wharfmq.flow.records;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** Checks on a tree handed to a format to write: an array of objects, or one object. */
final class RecordTree {

    private RecordTree() {
    }

    static ArrayNode array(JsonNode records) {
        if (records instanceof ArrayNode array) {
            return array;
        }
        if (records instanceof ObjectNode one) {
            return JsonNodeFactory.instance.arrayNode().add(one);
        }
        throw new RecordFormatException("Records to write must be an array of objects (one per record) or one "
                + "object, not " + (records == null ? "null" : records.getNodeType()) + ".");
    }

    static ObjectNode record(JsonNode value, int number) {
        if (value instanceof ObjectNode record) {
            return record;
        }
        throw new RecordFormatException("Record " + number + " must be an object of fields, not "
                + value.getNodeType() + ".");
    }
}
