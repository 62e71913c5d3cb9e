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
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * Which classes {@link javax.jms.ObjectMessage#getObject()} may deserialise, and how much work it may take. Java
 * deserialisation of untrusted bytes can run code of any class on the class path, so only allowed classes are
 * loaded; any other class in the stream fails the read with a MessageFormatException naming the class and the
 * setting. Allowed classes can still be made to burn CPU or memory, so the read is also bounded by the
 * {@link DeserializationLimit}s; a body past one fails with a MessageFormatException naming the limit and how to
 * raise it. Any other failure of the read (a corrupt stream, an exception or error thrown by a class's
 * {@code readObject}, running out of stack or heap) is a MessageFormatException too, never an Error.
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
    private static final DeserializationLimit[] LIMITS = DeserializationLimit.values();

    private final String text;
    private final boolean allowAll;
    private final Set<String> classes;
    private final List<String> packages;
    private final List<String> packageTrees;
    /** Each {@link DeserializationLimit}'s value, by ordinal. */
    private final long[] limits;

    private DeserializationPolicy(String text, long[] limits) {
        this.text = text;
        this.limits = limits;
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
     * A policy for an allow list, with the default limits.
     *
     * @throws IllegalArgumentException for a malformed pattern
     */
    public static DeserializationPolicy of(String allowList) {
        long[] limits = new long[LIMITS.length];
        for (DeserializationLimit limit : LIMITS) {
            limits[limit.ordinal()] = limit.defaultValue();
        }
        return new DeserializationPolicy(allowList == null ? "" : allowList, limits);
    }

    /**
     * The policy of the system properties: the allow list of {@value #SYSTEM_PROPERTY} and each limit's
     * {@link DeserializationLimit#systemProperty()}, the defaults for those not set.
     *
     * @throws IllegalArgumentException for a malformed pattern or limit, naming the property
     */
    public static DeserializationPolicy fromSystemProperties() {
        String configured = System.getProperty(SYSTEM_PROPERTY);
        long[] limits = new long[LIMITS.length];
        for (DeserializationLimit limit : LIMITS) {
            limits[limit.ordinal()] = limit.fromSystemProperty();
        }
        return new DeserializationPolicy(configured == null || configured.isBlank() ? DEFAULT_ALLOW_LIST : configured, limits);
    }

    /**
     * This policy with another allow list.
     *
     * @throws IllegalArgumentException for a malformed pattern
     */
    public DeserializationPolicy withAllowList(String allowList) {
        return new DeserializationPolicy(allowList == null ? "" : allowList, limits);
    }

    /**
     * This policy with another value for one limit.
     *
     * @throws IllegalArgumentException when {@code value} is below 1
     */
    public DeserializationPolicy withLimit(DeserializationLimit limit, long value) {
        if (value < 1) {
            throw new IllegalArgumentException(limit.urlOption() + " must be at least 1, not " + value);
        }
        long[] changed = Arrays.copyOf(limits, limits.length);
        changed[limit.ordinal()] = value;
        return new DeserializationPolicy(text, changed);
    }

    /** The value of one limit. */
    public long limit(DeserializationLimit limit) {
        return limits[limit.ordinal()];
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
     * Deserialises {@code bytes}, resolving only allowed classes and within the limits.
     *
     * @throws MessageFormatException naming the refused class or the limit and the setting, or saying why the bytes
     *                                could not be read
     */
    public Serializable deserialize(byte[] bytes) throws JMSException {
        Filter filter = new Filter(bytes.length);
        try (ObjectInputStream in = new FilteringInputStream(new ByteArrayInputStream(bytes), filter)) {
            in.setObjectInputFilter(filter);
            return (Serializable) in.readObject();
        } catch (IOException | ClassNotFoundException | RuntimeException | StackOverflowError | OutOfMemoryError e) {
            // errors too: they come from this body's graph (a readObject recursing, a huge graph within the limits),
            // and unwinding to here has made everything it allocated garbage
            throw failure(filter, e);
        }
    }

    private MessageFormatException failure(Filter filter, Throwable e) {
        String why;
        if (filter.refusedClass != null) {
            why = "ObjectMessage holds a " + filter.refusedClass + ", which is not in the deserialisation allow list ["
                    + text + "]; allow it with the broker URL option " + URL_OPTION + " or the system property "
                    + SYSTEM_PROPERTY + " (e.g. " + URL_OPTION + "=com.acme.*,java.util.*)";
        } else if (filter.refusal != null) {
            why = "Cannot deserialise the ObjectMessage body: " + filter.refusal;
        } else if (e instanceof StackOverflowError) {
            why = "Cannot deserialise the ObjectMessage body: its objects are nested too deeply for the thread's stack"
                    + " (" + DeserializationLimit.DEPTH.urlOption() + " is " + limit(DeserializationLimit.DEPTH) + ")";
        } else if (e instanceof OutOfMemoryError) {
            why = "Cannot deserialise the ObjectMessage body: its objects do not fit in the free heap (" + e.getMessage()
                    + "); lower the limits " + DeserializationLimit.ARRAY_LENGTH.urlOption() + " and "
                    + DeserializationLimit.REFERENCES.urlOption() + ", or give the JVM more heap";
        } else {
            why = "Cannot deserialise the ObjectMessage body: " + e;
        }
        MessageFormatException failed = new MessageFormatException(why);
        failed.initCause(e);
        if (e instanceof Exception exception) {
            failed.setLinkedException(exception);
        }
        return failed;
    }

    @Override
    public String toString() {
        return "DeserializationPolicy[" + text + "]";
    }

    /**
     * Rejects what goes past a limit, arrays of primitives longer than the rest of the body, and classes outside the
     * allow list; remembers the first reason, for the error message.
     */
    private final class Filter implements ObjectInputFilter {
        private final long bodyLength;
        String refusedClass;
        String refusal;

        Filter(long bodyLength) {
            this.bodyLength = bodyLength;
        }

        @Override
        public Status checkInput(FilterInfo info) {
            long needed = DeserializationLimit.primitiveArrayBytes(info);
            if (needed > 0) {
                // the array is allocated before its elements are read, which follow it in the stream: a length the
                // rest of the body cannot hold is a forgery (a few bytes declaring a long[1 << 28] would take 2 GiB)
                long left = bodyLength - info.streamBytes();
                if (needed > left) {
                    return reject("it declares a " + info.serialClass().getComponentType() + "[" + info.arrayLength()
                            + "] (" + needed + " bytes) where " + left + " bytes of the body are left; the body is"
                            + " truncated or forged");
                }
            }
            for (DeserializationLimit limit : LIMITS) {
                long value = limit.measure(info);
                long max = limits[limit.ordinal()];
                if (value > max) {
                    return reject(limit.exceeded(value, max) + "; " + limit.howToRaise());
                }
            }
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
            refuseClass(c.getName());
            return Status.REJECTED;
        }

        private Status reject(String why) {
            if (refusal == null && refusedClass == null) {
                refusal = why;
            }
            return Status.REJECTED;
        }

        void refuseClass(String className) {
            if (refusedClass == null && refusal == null) {
                refusedClass = className;
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
                filter.refuseClass(element);
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
