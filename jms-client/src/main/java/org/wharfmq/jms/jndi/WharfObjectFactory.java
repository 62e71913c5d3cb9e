package org.wharfmq.jms.jndi;

import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.jms.WharfXAConnectionFactory;

import javax.naming.Context;
import javax.naming.Name;
import javax.naming.RefAddr;
import javax.naming.Reference;
import javax.naming.spi.ObjectFactory;
import java.util.Hashtable;

/**
 * Rebuilds a {@link WharfConnectionFactory} or {@link WharfXAConnectionFactory} from the {@link Reference} it stores in
 * a JNDI directory (for example an application server's), so the factory can be bound there by reference.
 */
public final class WharfObjectFactory implements ObjectFactory {
    /** Needed by JNDI, which instantiates object factories reflectively. */
    public WharfObjectFactory() {
    }

    @Override
    public Object getObjectInstance(Object obj, Name name, Context nameCtx, Hashtable<?, ?> environment) {
        if (!(obj instanceof Reference reference)) {
            return null;
        }
        boolean xa = WharfXAConnectionFactory.class.getName().equals(reference.getClassName());
        if (xa || WharfConnectionFactory.class.getName().equals(reference.getClassName())) {
            RefAddr url = reference.get(WharfConnectionFactory.BROKER_URL_ADDRESS);
            WharfConnectionFactory factory = xa ? new WharfXAConnectionFactory() : new WharfConnectionFactory();
            if (url != null) {
                factory.setBrokerURL((String) url.getContent());
            }
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
