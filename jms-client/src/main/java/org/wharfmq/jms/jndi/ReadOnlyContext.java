package org.wharfmq.jms.jndi;

import org.wharfmq.jms.WharfQueue;
import org.wharfmq.jms.WharfTopic;

import javax.naming.Binding;
import javax.naming.CompositeName;
import javax.naming.Context;
import javax.naming.InvalidNameException;
import javax.naming.Name;
import javax.naming.NameClassPair;
import javax.naming.NameNotFoundException;
import javax.naming.NameParser;
import javax.naming.NamingEnumeration;
import javax.naming.NamingException;
import javax.naming.NotContextException;
import javax.naming.OperationNotSupportedException;
import java.util.ArrayList;
import java.util.Hashtable;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The flat, read-only naming context {@link WharfInitialContextFactory} returns. Names are looked up as whole
 * strings (so {@code jms/Orders} is one binding), except the {@code dynamicQueues/} and {@code dynamicTopics/}
 * prefixes, which create destinations on demand. Binding, renaming and subcontexts are not supported.
 */
final class ReadOnlyContext implements Context {
    static final String DYNAMIC_QUEUES = "dynamicQueues/";
    static final String DYNAMIC_TOPICS = "dynamicTopics/";
    private static final NameParser PARSER = CompositeName::new;

    private final Hashtable<Object, Object> environment;
    private final Map<String, Object> bindings;

    ReadOnlyContext(Hashtable<Object, Object> environment, Map<String, Object> bindings) {
        this.environment = environment;
        this.bindings = new TreeMap<>(bindings);
    }

    @Override
    public Object lookup(String name) throws NamingException {
        if (name == null) {
            throw new InvalidNameException("null name");
        }
        if (name.isEmpty()) {
            return new ReadOnlyContext(new Hashtable<>(environment), bindings);
        }
        Object bound = bindings.get(name);
        if (bound != null) {
            return bound;
        }
        if (name.startsWith(DYNAMIC_QUEUES) && name.length() > DYNAMIC_QUEUES.length()) {
            return new WharfQueue(name.substring(DYNAMIC_QUEUES.length()));
        }
        if (name.startsWith(DYNAMIC_TOPICS) && name.length() > DYNAMIC_TOPICS.length()) {
            return new WharfTopic(name.substring(DYNAMIC_TOPICS.length()));
        }
        throw new NameNotFoundException("No JNDI binding named '" + name + "'. Bound: " + bindings.keySet()
                + "; declare one with queue.NAME=, topic.NAME= or connectionFactory.NAME= in jndi.properties, or use "
                + DYNAMIC_QUEUES + "NAME / " + DYNAMIC_TOPICS + "NAME");
    }

    @Override
    public Object lookup(Name name) throws NamingException {
        return lookup(flatten(name));
    }

    /** Joins the components with '/', undoing CompositeName's parsing of a name such as dynamicQueues/X. */
    private static String flatten(Name name) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < name.size(); i++) {
            if (i > 0) {
                sb.append('/');
            }
            sb.append(name.get(i));
        }
        return sb.toString();
    }

    @Override
    public Object lookupLink(String name) throws NamingException {
        return lookup(name);
    }

    @Override
    public Object lookupLink(Name name) throws NamingException {
        return lookup(name);
    }

    @Override
    public NamingEnumeration<NameClassPair> list(String name) throws NamingException {
        checkRoot(name);
        return enumerate(e -> new NameClassPair(e.getKey(), e.getValue().getClass().getName()));
    }

    @Override
    public NamingEnumeration<NameClassPair> list(Name name) throws NamingException {
        return list(flatten(name));
    }

    @Override
    public NamingEnumeration<Binding> listBindings(String name) throws NamingException {
        checkRoot(name);
        return enumerate(e -> new Binding(e.getKey(), e.getValue()));
    }

    @Override
    public NamingEnumeration<Binding> listBindings(Name name) throws NamingException {
        return listBindings(flatten(name));
    }

    private void checkRoot(String name) throws NamingException {
        if (name != null && !name.isEmpty()) {
            if (bindings.containsKey(name)) {
                throw new NotContextException("'" + name + "' is not a context");
            }
            throw new NameNotFoundException("No JNDI context named '" + name + "'");
        }
    }

    private <T> NamingEnumeration<T> enumerate(Function<Map.Entry<String, Object>, T> mapper) {
        List<T> items = new ArrayList<>(bindings.size());
        for (Map.Entry<String, Object> e : bindings.entrySet()) {
            items.add(mapper.apply(e));
        }
        Iterator<T> it = items.iterator();
        return new NamingEnumeration<>() {
            @Override
            public T next() {
                return it.next();
            }

            @Override
            public boolean hasMore() {
                return it.hasNext();
            }

            @Override
            public void close() {
            }

            @Override
            public boolean hasMoreElements() {
                return it.hasNext();
            }

            @Override
            public T nextElement() {
                if (!it.hasNext()) {
                    throw new NoSuchElementException();
                }
                return it.next();
            }
        };
    }

    @Override
    public NameParser getNameParser(String name) {
        return PARSER;
    }

    @Override
    public NameParser getNameParser(Name name) {
        return PARSER;
    }

    @Override
    public Name composeName(Name name, Name prefix) throws NamingException {
        return ((Name) prefix.clone()).addAll(name);
    }

    @Override
    public String composeName(String name, String prefix) {
        return prefix == null || prefix.isEmpty() ? name : prefix + "/" + name;
    }

    @Override
    public Object addToEnvironment(String propName, Object propVal) {
        return environment.put(propName, propVal);
    }

    @Override
    public Object removeFromEnvironment(String propName) {
        return environment.remove(propName);
    }

    @Override
    public Hashtable<?, ?> getEnvironment() {
        return new Hashtable<>(environment);
    }

    @Override
    public void close() {
    }

    @Override
    public String getNameInNamespace() {
        return "";
    }

    // ---- read-only ----

    private static OperationNotSupportedException readOnly() {
        return new OperationNotSupportedException("The Wharf JNDI context is read-only: declare names in jndi.properties"
                + " or the InitialContext environment");
    }

    @Override
    public void bind(Name name, Object obj) throws NamingException {
        throw readOnly();
    }

    @Override
    public void bind(String name, Object obj) throws NamingException {
        throw readOnly();
    }

    @Override
    public void rebind(Name name, Object obj) throws NamingException {
        throw readOnly();
    }

    @Override
    public void rebind(String name, Object obj) throws NamingException {
        throw readOnly();
    }

    @Override
    public void unbind(Name name) throws NamingException {
        throw readOnly();
    }

    @Override
    public void unbind(String name) throws NamingException {
        throw readOnly();
    }

    @Override
    public void rename(Name oldName, Name newName) throws NamingException {
        throw readOnly();
    }

    @Override
    public void rename(String oldName, String newName) throws NamingException {
        throw readOnly();
    }

    @Override
    public void destroySubcontext(Name name) throws NamingException {
        throw readOnly();
    }

    @Override
    public void destroySubcontext(String name) throws NamingException {
        throw readOnly();
    }

    @Override
    public Context createSubcontext(Name name) throws NamingException {
        throw readOnly();
    }

    @Override
    public Context createSubcontext(String name) throws NamingException {
        throw readOnly();
    }
}
