package org.wharfmq.spring.boot;

import jakarta.jms.ConnectionFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.jms.connection.CachingConnectionFactory;
import org.wharfmq.jms.WharfConnectionFactory;

/**
 * Auto-configures the application's {@link ConnectionFactory} for Wharf from {@link WharfProperties}, before Spring
 * Boot's JMS auto-configuration builds {@code JmsTemplate} and the {@code @JmsListener} containers on it. As Spring
 * Boot does for Artemis, the factory is wrapped in a {@link CachingConnectionFactory} (one connection, cached sessions
 * and producers: {@code JmsTemplate} opens a session per operation) unless {@code spring.jms.cache.enabled=false};
 * the {@code spring.jms.cache.*} settings apply. An application that defines its own {@code ConnectionFactory} keeps
 * it.
 *
 * <p>One class for Spring Boot 3.0 to 4.x: it names only what every line has. Boot 4 moved the JMS auto-configuration
 * and its {@code JmsProperties} to another package (module spring-boot-jms), so Boot's JMS auto-configuration is named
 * by both its class names and the {@code spring.jms.cache.*} settings are read from the environment, with Boot's
 * defaults (the same on every line); the choice of bean is made by {@code @ConditionalOnProperty}, as Boot's own
 * Artemis configuration made it up to 3.4.
 */
@AutoConfiguration(beforeName = {
        "org.springframework.boot.autoconfigure.jms.JmsAutoConfiguration", // Spring Boot 3
        "org.springframework.boot.jms.autoconfigure.JmsAutoConfiguration"}) // Spring Boot 4
@ConditionalOnClass({ConnectionFactory.class, WharfConnectionFactory.class})
@ConditionalOnMissingBean(ConnectionFactory.class)
@EnableConfigurationProperties(WharfProperties.class)
public class WharfAutoConfiguration {

    /** The connection factory, cached (the default). */
    @Bean(name = "jmsConnectionFactory")
    @ConditionalOnProperty(name = "spring.jms.cache.enabled", havingValue = "true", matchIfMissing = true)
    public CachingConnectionFactory cachingJmsConnectionFactory(WharfProperties wharf, Environment environment) {
        Binder cache = Binder.get(environment);
        CachingConnectionFactory factory = new CachingConnectionFactory(wharfConnectionFactory(wharf));
        factory.setCacheConsumers(cache.bind("spring.jms.cache.consumers", Boolean.class).orElse(false));
        factory.setCacheProducers(cache.bind("spring.jms.cache.producers", Boolean.class).orElse(true));
        factory.setSessionCacheSize(cache.bind("spring.jms.cache.session-cache-size", Integer.class).orElse(1));
        return factory;
    }

    /** The connection factory itself, when {@code spring.jms.cache.enabled=false}. */
    @Bean(name = "jmsConnectionFactory")
    @ConditionalOnProperty(name = "spring.jms.cache.enabled", havingValue = "false")
    public WharfConnectionFactory jmsConnectionFactory(WharfProperties wharf) {
        return wharfConnectionFactory(wharf);
    }

    /**
     * A {@link WharfConnectionFactory} for {@code wharf.url}, {@code wharf.user}, {@code wharf.password} and
     * {@code wharf.options.*}; a malformed URL or an unknown option fails the application's start, naming it.
     */
    static WharfConnectionFactory wharfConnectionFactory(WharfProperties wharf) {
        WharfConnectionFactory factory = new WharfConnectionFactory(wharf.getUrl());
        wharf.getOptions().forEach((name, value) -> factory.setOption(optionName(name), value));
        factory.setUserName(wharf.getUser());
        factory.setPassword(wharf.getPassword());
        return factory;
    }

    /**
     * The broker URL option a {@code wharf.options.*} key names. Spring Boot gives a map key as the source wrote it:
     * {@code clientID} from a properties file, but {@code clientid} from the environment variable
     * {@code WHARF_OPTIONS_CLIENTID} and {@code client-id} in Boot's kebab case; each is the option whose name is the
     * same but for case and dashes. A key that is no option's is passed on as it is, and refused naming it.
     */
    static String optionName(String key) {
        String bare = key.replace("-", "").replace("_", "");
        for (String option : WharfConnectionFactory.optionNames()) {
            if (option.equalsIgnoreCase(bare)) {
                return option;
            }
        }
        return key;
    }
}
