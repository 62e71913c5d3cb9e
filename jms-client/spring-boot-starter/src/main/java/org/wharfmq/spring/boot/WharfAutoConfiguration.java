package org.wharfmq.spring.boot;

import jakarta.jms.ConnectionFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.jms.JmsAutoConfiguration;
import org.springframework.boot.autoconfigure.jms.JmsProperties;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.jms.connection.CachingConnectionFactory;
import org.wharfmq.jms.WharfConnectionFactory;

/**
 * Auto-configures the application's {@link ConnectionFactory} for Wharf from {@link WharfProperties}, before Spring
 * Boot's JMS auto-configuration builds {@code JmsTemplate} and the {@code @JmsListener} containers on it. As Spring
 * Boot does for Artemis, the factory is wrapped in a {@link CachingConnectionFactory} (one connection, cached sessions
 * and producers: {@code JmsTemplate} opens a session per operation) unless {@code spring.jms.cache.enabled=false};
 * the {@code spring.jms.cache.*} settings apply. An application that defines its own {@code ConnectionFactory} keeps
 * it.
 */
@AutoConfiguration(before = JmsAutoConfiguration.class)
@ConditionalOnClass({ConnectionFactory.class, WharfConnectionFactory.class})
@ConditionalOnMissingBean(ConnectionFactory.class)
@EnableConfigurationProperties({WharfProperties.class, JmsProperties.class})
public class WharfAutoConfiguration {

    /** The connection factory, cached (the default). */
    @Bean(name = "jmsConnectionFactory")
    @ConditionalOnBooleanProperty(name = "spring.jms.cache.enabled", matchIfMissing = true)
    public CachingConnectionFactory cachingJmsConnectionFactory(WharfProperties wharf, JmsProperties jms) {
        JmsProperties.Cache cache = jms.getCache();
        CachingConnectionFactory factory = new CachingConnectionFactory(wharfConnectionFactory(wharf));
        factory.setCacheConsumers(cache.isConsumers());
        factory.setCacheProducers(cache.isProducers());
        factory.setSessionCacheSize(cache.getSessionCacheSize());
        return factory;
    }

    /** The connection factory itself, when {@code spring.jms.cache.enabled=false}. */
    @Bean(name = "jmsConnectionFactory")
    @ConditionalOnBooleanProperty(name = "spring.jms.cache.enabled", havingValue = false)
    public WharfConnectionFactory jmsConnectionFactory(WharfProperties wharf) {
        return wharfConnectionFactory(wharf);
    }

    /**
     * A {@link WharfConnectionFactory} for {@code wharf.url}, {@code wharf.user}, {@code wharf.password} and
     * {@code wharf.options.*}; a malformed URL or an unknown option fails the application's start, naming it.
     */
    static WharfConnectionFactory wharfConnectionFactory(WharfProperties wharf) {
        WharfConnectionFactory factory = new WharfConnectionFactory(wharf.getUrl());
        wharf.getOptions().forEach(factory::setOption);
        factory.setUserName(wharf.getUser());
        factory.setPassword(wharf.getPassword());
        return factory;
    }
}
