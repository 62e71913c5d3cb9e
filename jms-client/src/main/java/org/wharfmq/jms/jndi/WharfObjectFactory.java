package org.wharfmq.jms.jndi;

import org.wharfmq.jms.WharfConnectionFactory;

import javax.naming.Context;
import javax.naming.Name;
import javax.naming.RefAddr;
import javax.naming.Reference;
import javax.naming.spi.ObjectFactory;
import java.util.Hashtable;

/**
 * Rebuilds a {@link WharfConnectionFactory} from the {@link Reference} it stores in a JNDI directory (for example
 * an application server's), so the factory can be bound there by reference.
 */
public final class WharfObjectFactory implements ObjectFactory {
    /** Needed by JNDI, which instantiates object factories reflectively. */
    public WharfObjectFactory() {
    }

    @Override
    public Object getObjectInstance(Object obj, Name name, Context nameCtx, Hashtable<?, ?> environment) {
        if (obj instanceof Reference reference && WharfConnectionFactory.class.getName().equals(reference.getClassName())) {
            RefAddr url = reference.get(WharfConnectionFactory.BROKER_URL_ADDRESS);
            WharfConnectionFactory factory = url == null ? new WharfConnectionFactory()
                    : new WharfConnectionFactory((String) url.getContent());
            for (RefAddr setting : java.util.Collections.list(reference.getAll())) {
                if (!setting.getType().equals(WharfConnectionFactory.BROKER_URL_ADDRESS)) {
                    factory.setOption(setting.getType(), (String) setting.getContent());
                }
            }
            return factory;
        }
        return null;
    }
}
