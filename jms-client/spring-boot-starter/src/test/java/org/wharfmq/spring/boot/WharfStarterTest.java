package org.wharfmq.spring.boot;

import jakarta.jms.ConnectionFactory;
import jakarta.jms.JMSSecurityException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.jms.annotation.JmsListener;
import org.springframework.jms.connection.CachingConnectionFactory;
import org.springframework.jms.core.JmsTemplate;
import org.springframework.jms.support.JmsHeaders;
import org.springframework.messaging.handler.annotation.Header;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.protocol.auth.ScramCredential;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.security.file.SecurityFileRealm;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A small Spring Boot application with the starter on its class path and two properties, against a real server that
 * has a user: the auto-configured, cached connection factory, {@code JmsTemplate}, a {@code @JmsListener}, and a
 * listener whose failure rolls the message back for redelivery (Spring Boot's listener containers are transacted
 * unless told otherwise). Run here on the oldest Spring Boot line the starter supports, and on each later line by
 * jms-client/spring-boot-tests.
 */
class WharfStarterTest {

    @TempDir
    Path dir;
    private SecurityFileRealm realm;
    private TestServer server;
    private ConfigurableApplicationContext app;

    @BeforeEach
    void startServer() throws Exception {
        Path file = dir.resolve("security.yaml");
        Files.writeString(file, "users:\n  orders:\n    password: \""
                + ScramCredential.create("orders-pw".toCharArray(), 4096, new SecureRandom()).verifier() + "\"\n");
        realm = SecurityFileRealm.open(file);
        server = TestServer.start(c -> c, c -> WharfServer.builder(c).authenticator(realm).accessControl(realm.accessControl()).start());
    }

    @AfterEach
    void stop() {
        if (app != null) {
            app.close();
        }
        server.close();
        realm.close();
    }

    private ConfigurableApplicationContext start(String... properties) {
        return new SpringApplicationBuilder(OrdersApplication.class).web(WebApplicationType.NONE)
                .properties("wharf.url=" + server.server().tcpUrl()).properties(properties).run();
    }

    @Test
    void twoPropertiesGiveACachedConnectionFactoryJmsTemplateAndListeners() throws Exception {
        app = start("wharf.user=orders", "wharf.password=orders-pw");
        ConnectionFactory factory = app.getBean(ConnectionFactory.class);
        CachingConnectionFactory cached = assertInstanceOf(CachingConnectionFactory.class, factory);
        WharfConnectionFactory wharf = assertInstanceOf(WharfConnectionFactory.class, cached.getTargetConnectionFactory());
        assertEquals("orders", wharf.getUserName());
        assertEquals(1, cached.getSessionCacheSize(), "Spring Boot's default spring.jms.cache.session-cache-size");

        app.getBean(JmsTemplate.class).convertAndSend("BOOT.ORDERS", "order 1");
        Orders orders = app.getBean(Orders.class);
        assertEquals("order 1 from orders", orders.received.poll(30, TimeUnit.SECONDS));
    }

    @Test
    void theSpringJmsCacheSettingsApply() {
        app = start("spring.jms.cache.session-cache-size=5", "spring.jms.cache.consumers=true",
                "spring.jms.listener.auto-startup=false");
        CachingConnectionFactory cached = assertInstanceOf(CachingConnectionFactory.class, app.getBean(ConnectionFactory.class));
        assertEquals(5, cached.getSessionCacheSize());
        assertTrue(cached.isCacheConsumers());
    }

    @Test
    void withoutCachingTheFactoryIsWharfsOwnWithTheUrlOptions() {
        app = start("wharf.user=orders", "wharf.password=orders-pw", "spring.jms.cache.enabled=false",
                "wharf.options.ssl=false", "wharf.options.clientID=orders-app", "spring.jms.listener.auto-startup=false");
        WharfConnectionFactory factory = assertInstanceOf(WharfConnectionFactory.class, app.getBean(ConnectionFactory.class));
        assertEquals(server.server().tcpUrl(), factory.getBrokerURL());
        assertEquals("orders-app", factory.getClientID(), "any URL option, its name's case kept");
        app.getBean(JmsTemplate.class).convertAndSend("BOOT.UNCACHED", "works");
    }

    @Test
    void anOptionFromAnEnvironmentVariableOrInKebabCaseIsTheOptionOfThatName() {
        // WHARF_OPTIONS_CLIENTID, as a container sets it: Spring Boot gives the map key in lower case, 'clientid'
        app = new SpringApplicationBuilder(OrdersApplication.class).web(WebApplicationType.NONE)
                .initializers(context -> context.getEnvironment().getPropertySources().addFirst(new
                        SystemEnvironmentPropertySource("test-systemEnvironment", Map.of("WHARF_OPTIONS_CLIENTID", "env-app"))))
                .properties("wharf.url=" + server.server().tcpUrl(), "spring.jms.cache.enabled=false",
                        "spring.jms.listener.auto-startup=false").run();
        assertEquals("env-app", assertInstanceOf(WharfConnectionFactory.class,
                app.getBean(ConnectionFactory.class)).getClientID());
        app.close();
        app = start("wharf.options.client-id=kebab-app", "spring.jms.cache.enabled=false",
                "spring.jms.listener.auto-startup=false");
        assertEquals("kebab-app", assertInstanceOf(WharfConnectionFactory.class,
                app.getBean(ConnectionFactory.class)).getClientID());
    }

    @Test
    void anUnknownUrlOptionFailsTheStartNamingIt() {
        Exception e = assertThrows(Exception.class, () -> start("wharf.options.trustStoar=/etc/trust.p12"));
        Throwable root = e;
        while (root.getCause() != null) {
            root = root.getCause();
        }
        assertTrue(root.getMessage().contains("trustStoar"), root.toString());
    }

    @Test
    void aListenerThatThrowsGetsTheMessageAgainMarkedRedeliveredAsBootsListenersAreTransacted() throws Exception {
        app = start("wharf.user=orders", "wharf.password=orders-pw");
        app.getBean(JmsTemplate.class).convertAndSend("BOOT.PAYMENTS", "payment 1");
        Orders orders = app.getBean(Orders.class);
        assertEquals("payment 1 redelivered=false", orders.payments.poll(30, TimeUnit.SECONDS));
        assertEquals("payment 1 redelivered=true", orders.payments.poll(30, TimeUnit.SECONDS));
        assertEquals(2, orders.paymentAttempts.get());
    }

    @Test
    void aWrongPasswordFailsTheFirstUseNamingTheUser() {
        app = start("wharf.user=orders", "wharf.password=wrong", "spring.jms.listener.auto-startup=false");
        Exception e = assertThrows(Exception.class,
                () -> app.getBean(JmsTemplate.class).convertAndSend("BOOT.ORDERS", "order 2"));
        Throwable cause = e;
        while (cause != null && !(cause instanceof JMSSecurityException)) {
            cause = cause.getCause();
        }
        assertTrue(cause != null && cause.getMessage().contains("orders"), "JMSSecurityException naming the user: " + e);
    }

    /** The application: two listeners, one of them failing its first attempt. */
    @Configuration
    @EnableAutoConfiguration
    static class OrdersApplication {
        @Bean
        Orders orders() {
            return new Orders();
        }
    }

    public static class Orders {
        final BlockingQueue<String> received = new LinkedBlockingQueue<>();
        final BlockingQueue<String> payments = new LinkedBlockingQueue<>();
        final AtomicInteger paymentAttempts = new AtomicInteger();

        @JmsListener(destination = "BOOT.ORDERS")
        public void order(String body, @Header("JMSXUserID") String user) {
            received.add(body + " from " + user);
        }

        @JmsListener(destination = "BOOT.PAYMENTS")
        public void payment(String body, @Header(JmsHeaders.REDELIVERED) boolean redelivered) {
            int attempt = paymentAttempts.incrementAndGet();
            payments.add(body + " redelivered=" + redelivered);
            if (attempt == 1) {
                throw new IllegalStateException("the first attempt fails: the transaction rolls back");
            }
        }
    }
}
