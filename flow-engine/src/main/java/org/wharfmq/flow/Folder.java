package org.wharfmq.flow;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * One named part of a message assembly (the message's properties, header fields or user properties, the
 * LocalEnvironment, the Environment): an ordered map from field name to value.
 *
 * <p>Copy-on-write: {@link #copy()} shares the values with the original, and whichever side writes first takes a
 * private copy of the map, so parts a node does not change are never copied. A read-only folder (a node's input)
 * refuses writes with an exception that says to copy the assembly first.
 */
public final class Folder {

    private final String name;
    private Map<String, Object> values;
    private boolean shared;
    private boolean readOnly;

    private Folder(String name, Map<String, Object> values, boolean shared, boolean readOnly) {
        this.name = name;
        this.values = values;
        this.shared = shared;
        this.readOnly = readOnly;
    }

    /** An empty, writable folder. */
    public static Folder empty(String name) {
        return new Folder(name, Collections.emptyMap(), true, false);
    }

    /** A writable folder that takes ownership of {@code values} (the caller must not keep using the map). */
    public static Folder of(String name, Map<String, Object> values) {
        return new Folder(name, values, false, false);
    }

    /** The folder's name, e.g. {@code UserProperties}. */
    public String name() {
        return name;
    }

    /** The value of a field, or null when absent. */
    public Object get(String field) {
        return values.get(field);
    }

    /** The value of a field as a string ({@code String.valueOf}), or null when absent. */
    public String getString(String field) {
        Object value = values.get(field);
        return value == null ? null : String.valueOf(value);
    }

    /** Whether the field is present. */
    public boolean contains(String field) {
        return values.containsKey(field);
    }

    /** The field names, in insertion order (unmodifiable). */
    public Set<String> names() {
        return Collections.unmodifiableSet(values.keySet());
    }

    /** The fields as an unmodifiable map. */
    public Map<String, Object> asMap() {
        return Collections.unmodifiableMap(values);
    }

    /** Number of fields. */
    public int size() {
        return values.size();
    }

    /** Whether writes are refused. */
    public boolean isReadOnly() {
        return readOnly;
    }

    /**
     * Sets a field (null removes it).
     *
     * @return this
     * @throws IllegalStateException when the folder is read-only (a node's input: copy the assembly first)
     */
    public Folder set(String field, Object value) {
        if (value == null) {
            return remove(field);
        }
        writable().put(field, value);
        return this;
    }

    /** Removes a field; see {@link #set}. */
    public Folder remove(String field) {
        if (values.containsKey(field)) {
            writable().remove(field);
        } else {
            checkWritable();
        }
        return this;
    }

    /** A writable copy sharing this folder's values until either side writes. */
    public Folder copy() {
        shared = true;
        return new Folder(name, values, true, false);
    }

    /** Makes this folder read-only for good (a propagated or received assembly). */
    void freeze() {
        readOnly = true;
    }

    /** Whether this folder and {@code other} currently share one map (nothing was copied): for tests and stats. */
    boolean sharesValuesWith(Folder other) {
        return values == other.values;
    }

    private Map<String, Object> writable() {
        checkWritable();
        if (shared) {
            values = new LinkedHashMap<>(values);
            shared = false;
        }
        return values;
    }

    private void checkWritable() {
        if (readOnly) {
            throw new IllegalStateException("The " + name + " folder is read-only: a node's input assembly (and an "
                    + "assembly already propagated) cannot change. Work on assembly.copy().");
        }
    }

    @Override
    public String toString() {
        return name + values;
    }
}
