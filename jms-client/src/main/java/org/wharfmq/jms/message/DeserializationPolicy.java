package org.wharfmq.jms.message;

import javax.jms.JMSException;
import javax.jms.MessageFormatException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InvalidClassException;
import java.io.InputStream;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectStreamClass;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Which classes {@link javax.jms.ObjectMessage#getObject()} may deserialise. Java deserialisation of untrusted
 * bytes can run code of any class on the class path, so only allowed classes are loaded; any other class in the
 * stream fails the read with a JMSException naming the class and the setting.
 *
 * <p>The allow list is a comma-separated list of patterns: a class name ({@code com.acme.Order}), a package
 * ({@code com.acme.*}: its classes, not its subpackages), a package tree ({@code com.acme.**}), or {@code *} for
 * every class. It comes from the broker URL option {@code deserializationAllowList}, else the system property
 * {@value #SYSTEM_PROPERTY}, else {@link #DEFAULT_ALLOW_LIST}: the JDK's value types and collections. The boxed
 * primitives, String, Number and Object are always allowed (they cannot carry code). Arrays are judged by their element
 * class. Classes are loaded through the thread context class loader, falling back to the default resolution.
 */
public final class DeserializationPolicy {
    /** The system property naming the allow list when the broker URL does not. */
    public static final String SYSTEM_PROPERTY = "wharf.jms.deserializationAllowList";
    /** The broker URL option naming the allow list. */
    public static final String URL_OPTION = "deserializationAllowList";
    /** Allowed when neither the URL nor the system property says otherwise. */
    public static final String DEFAULT_ALLOW_LIST = "java.lang.Enum,java.util.*,java.math.BigInteger,java.math.BigDecimal,java.time.*";

    private static final Set<String> ALWAYS_ALLOWED = Set.of("java.lang.Boolean", "java.lang.Byte", "java.lang.Short",
            "java.lang.Character", "java.lang.Integer", "java.lang.Long", "java.lang.Float", "java.lang.Double",
            "java.lang.String", "java.lang.Number", "java.lang.Object");

    private final String text;
    private final boolean allowAll;
    private final Set<String> classes;
    private final List<String> packages;
    private final List<String> packageTrees;

    private DeserializationPolicy(String text) {
        this.text = text;
        boolean all = false;
        List<String> exact = new ArrayList<>();
        List<String> pkgs = new ArrayList<>();
        List<String> trees = new ArrayList<>();
        for (String raw : text.split(",")) {
            String p = raw.trim();
            if (p.isEmpty()) {
                continue;
            }
            if (p.equals("*")) {
                all = true;
            } else if (p.endsWith(".**")) {
                trees.add(p.substring(0, p.length() - 2));
            } else if (p.endsWith(".*")) {
                pkgs.add(p.substring(0, p.length() - 1));
            } else if (p.contains("*")) {
                throw new IllegalArgumentException("Invalid " + URL_OPTION + " pattern '" + p
                        + "': use a class name, package.*, package.** or *");
            } else {
                exact.add(p);
            }
        }
        this.allowAll = all;
        this.classes = Set.copyOf(exact);
        this.packages = List.copyOf(pkgs);
        this.packageTrees = List.copyOf(trees);
    }

    /**
     * A policy for an allow list.
     *
     * @throws IllegalArgumentException for a malformed pattern
     */
    public static DeserializationPolicy of(String allowList) {
        return new DeserializationPolicy(allowList == null ? "" : allowList);
    }

    /** The policy of the system property, or the default list when it is not set. */
    public static DeserializationPolicy fromSystemProperty() {
        String configured = System.getProperty(SYSTEM_PROPERTY);
        return of(configured == null || configured.isBlank() ? DEFAULT_ALLOW_LIST : configured);
    }

    /** Whether a class of this name may be deserialised. */
    public boolean allows(String className) {
        if (allowAll || ALWAYS_ALLOWED.contains(className) || classes.contains(className)) {
            return true;
        }
        int dot = className.lastIndexOf('.');
        String pkg = dot < 0 ? "" : className.substring(0, dot + 1);
        if (packages.contains(pkg)) {
            return true;
        }
        for (String tree : packageTrees) {
            if (className.startsWith(tree)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Deserialises {@code bytes}, resolving only allowed classes.
     *
     * @throws JMSException naming the refused class and the setting, or the reason the bytes could not be read
     */
    public Serializable deserialize(byte[] bytes) throws JMSException {
        Filter filter = new Filter();
        try (ObjectInputStream in = new FilteringInputStream(new ByteArrayInputStream(bytes), filter)) {
            in.setObjectInputFilter(filter);
            return (Serializable) in.readObject();
        } catch (IOException | ClassNotFoundException | ClassCastException e) {
            if (filter.refused != null) {
                JMSException refused = new JMSException("ObjectMessage holds a " + filter.refused + ", which is not in the"
                        + " deserialisation allow list [" + text + "]; allow it with the broker URL option " + URL_OPTION
                        + " or the system property " + SYSTEM_PROPERTY + " (e.g. " + URL_OPTION + "=com.acme.*,java.util.*)");
                refused.initCause(e);
                throw refused;
            }
            MessageFormatException failed = new MessageFormatException("Cannot deserialise the ObjectMessage body: " + e);
            failed.initCause(e);
            failed.setLinkedException(e);
            throw failed;
        }
    }

    @Override
    public String toString() {
        return "DeserializationPolicy[" + text + "]";
    }

    /** Rejects classes outside the allow list and remembers the first one, for the error message. */
    private final class Filter implements ObjectInputFilter {
        String refused;

        @Override
        public Status checkInput(FilterInfo info) {
            Class<?> c = info.serialClass();
            if (c == null) {
                return Status.UNDECIDED;
            }
            while (c.isArray()) {
                c = c.getComponentType();
            }
            if (c.isPrimitive() || allows(c.getName())) {
                return Status.ALLOWED;
            }
            refuse(c.getName());
            return Status.REJECTED;
        }

        void refuse(String className) {
            if (refused == null) {
                refused = className;
            }
        }
    }

    /**
     * Checks each class name before loading it (so a refused class is not even loaded), then resolves it through
     * the thread context class loader, as application servers and plugins need. The {@link Filter} checks again
     * what the stream resolves by other means (proxies, array classes).
     */
    private final class FilteringInputStream extends ObjectInputStream {
        private final Filter filter;

        FilteringInputStream(InputStream in, Filter filter) throws IOException {
            super(in);
            this.filter = filter;
        }

        @Override
        protected Class<?> resolveClass(ObjectStreamClass desc) throws IOException, ClassNotFoundException {
            String element = elementClassName(desc.getName());
            if (element != null && !allows(element)) {
                filter.refuse(element);
                throw new InvalidClassException(element, "not in the deserialisation allow list");
            }
            ClassLoader loader = Thread.currentThread().getContextClassLoader();
            if (loader != null) {
                try {
                    return Class.forName(desc.getName(), false, loader);
                } catch (ClassNotFoundException e) {
                    // fall back to the default resolution below (the caller's loader)
                }
            }
            return super.resolveClass(desc);
        }
    }

    /** The class name of an array's elements ({@code [[Lx.Y;} gives {@code x.Y}); null for primitive elements. */
    private static String elementClassName(String name) {
        int dims = 0;
        while (dims < name.length() && name.charAt(dims) == '[') {
            dims++;
        }
        if (dims == 0) {
            return name;
        }
        return name.charAt(dims) == 'L' && name.endsWith(";") ? name.substring(dims + 1, name.length() - 1) : null;
    }
}
