package org.wharfmq.flow.runtime;

import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.FlowFactory;
import org.wharfmq.flow.FlowProperties;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A flow jar in a class loader of its own, so flows cannot clash: each jar's classes (and the libraries packed in
 * it) are found in the jar first. Only the API every flow shares comes from the host: the JDK, the JMS API,
 * Jackson (the JSON domain hands out its trees) and Wharf's own packages.
 */
public final class FlowJar implements AutoCloseable {

    private static final List<String> SHARED_PACKAGES = List.of("java.", "javax.", "jakarta.", "jdk.", "sun.",
            "com.sun.", "org.wharfmq.", "com.fasterxml.jackson.");

    private final Path jar;
    private final ChildFirstClassLoader loader;

    private FlowJar(Path jar, ChildFirstClassLoader loader) {
        this.jar = jar;
        this.loader = loader;
    }

    /**
     * Opens a jar on top of {@code parent} (the class loader that has the flow engine).
     *
     * @throws IllegalArgumentException when the file does not exist
     */
    public static FlowJar open(Path jar, ClassLoader parent) {
        if (!Files.isRegularFile(jar)) {
            throw new IllegalArgumentException("Flow jar " + jar.toAbsolutePath() + " does not exist: build it (its "
                    + "project's package), or correct the path.");
        }
        try {
            URL url = jar.toUri().toURL();
            return new FlowJar(jar, new ChildFirstClassLoader(jar.getFileName().toString(), url, parent));
        } catch (MalformedURLException e) {
            throw new IllegalArgumentException("Flow jar path " + jar + " is not a valid URL: " + e, e);
        }
    }

    /** The jar file. */
    public Path path() {
        return jar;
    }

    /** The jar's class loader. */
    public ClassLoader classLoader() {
        return loader;
    }

    /**
     * Instantiates the jar's {@link FlowFactory} {@code className} and builds its flow with what its deployment says
     * ({@link FlowProperties#NONE} outside a server).
     *
     * @throws IllegalArgumentException when the class is missing, is not a FlowFactory, or cannot be created; or it is
     *                                  given properties and does not override {@link FlowFactory#create(FlowProperties)}
     * @throws org.wharfmq.flow.FlowValidationException when the flow it builds is invalid
     */
    public FlowDefinition createFlow(String className, FlowProperties properties) {
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(loader);
        try {
            Class<?> type = Class.forName(className, true, loader);
            if (!FlowFactory.class.isAssignableFrom(type)) {
                throw new IllegalArgumentException("Class " + className + " in " + jar + " does not implement "
                        + FlowFactory.class.getName() + ".");
            }
            FlowFactory factory = (FlowFactory) type.getConstructor().newInstance();
            if (!properties.asMap().isEmpty()
                    && type.getMethod("create", FlowProperties.class).getDeclaringClass() == FlowFactory.class) {
                // a property nothing reads is a mistake (a typo, the wrong entry), never silently ignored
                throw new IllegalArgumentException("Flow class " + className + " in " + jar + " is given the "
                        + "properties " + properties.asMap().keySet() + ", but reads none: it does not override "
                        + "create(FlowProperties). Remove properties: from its entry, or read them there.");
            }
            return factory.create(properties);
        } catch (ClassNotFoundException e) {
            throw new IllegalArgumentException("Class " + className + " is not in flow jar " + jar + ": check the "
                    + "class's name (with its package), or rebuild the jar.", e);
        } catch (NoSuchMethodException | InstantiationException | IllegalAccessException e) {
            throw new IllegalArgumentException("Class " + className + " in " + jar + " needs a public no-argument "
                    + "constructor: " + e, e);
        } catch (InvocationTargetException e) {
            throw new IllegalArgumentException("Creating " + className + " from " + jar + " failed: " + e.getCause(),
                    e.getCause());
        } finally {
            thread.setContextClassLoader(previous);
        }
    }

    /** Releases the jar file; its classes go once no flow uses them. */
    @Override
    public void close() {
        try {
            loader.close();
        } catch (IOException e) {
            System.getLogger(FlowJar.class.getName()).log(System.Logger.Level.DEBUG, "Closing " + jar + ": " + e);
        }
    }

    /** Looks in the jar first, except for the shared API packages. */
    private static final class ChildFirstClassLoader extends URLClassLoader {

        static {
            ClassLoader.registerAsParallelCapable();
        }

        ChildFirstClassLoader(String name, URL jar, ClassLoader parent) {
            super("flow:" + name, new URL[]{jar}, parent);
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(name)) {
                Class<?> type = findLoadedClass(name);
                if (type == null) {
                    if (shared(name)) {
                        try {
                            type = getParent().loadClass(name);
                        } catch (ClassNotFoundException e) {
                            type = findClass(name);
                        }
                    } else {
                        try {
                            type = findClass(name);
                        } catch (ClassNotFoundException e) {
                            type = getParent().loadClass(name);
                        }
                    }
                }
                if (resolve) {
                    resolveClass(type);
                }
                return type;
            }
        }

        private static boolean shared(String name) {
            for (String prefix : SHARED_PACKAGES) {
                if (name.startsWith(prefix)) {
                    return true;
                }
            }
            return false;
        }
    }
}
