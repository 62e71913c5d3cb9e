package org.wharfmq.server.http;

import org.junit.jupiter.api.Test;
import org.wharfmq.server.config.ServerConfig;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Where a client on the server's machine reaches the HTTP listener, from its settings alone (what a flow's
 * FlowProperties give it before the listener listens).
 */
class ConfiguredUrlTest {

    private static final ServerConfig ON_EVERY_INTERFACE = ServerConfig.builder().host("0.0.0.0").build();

    @Test
    void aListenerOnEveryInterfaceIsReachedOnTheLoopbackAddressAtItsPort() {
        assertEquals("http://127.0.0.1:7480", new HttpPlugin(new HttpSettings(null, 7480, false))
                .configuredUrl(ON_EVERY_INTERFACE), "the server's host, 0.0.0.0");
        assertEquals("https://127.0.0.1:8443", new HttpPlugin(new HttpSettings("0.0.0.0", 8443, true))
                .configuredUrl(ON_EVERY_INTERFACE));
        assertEquals("http://[::1]:7480", new HttpPlugin(new HttpSettings("::", 7480, false))
                .configuredUrl(ON_EVERY_INTERFACE));
    }

    @Test
    void aListenerOnOneInterfaceIsReachedThere() {
        assertEquals("http://10.1.2.3:7480", new HttpPlugin(new HttpSettings("10.1.2.3", 7480, false))
                .configuredUrl(ON_EVERY_INTERFACE));
        assertEquals("http://[fe80::1]:7480", new HttpPlugin(new HttpSettings("fe80::1", 7480, false))
                .configuredUrl(ON_EVERY_INTERFACE));
        assertEquals("http://mq1.example.com:7480", new HttpPlugin(new HttpSettings(null, 7480, false))
                .configuredUrl(ServerConfig.builder().host("mq1.example.com").build()), "the server's host");
    }

    @Test
    void noListenerOrAPortChosenAtStartHasNoAddressBeforeItListens() {
        assertNull(new HttpPlugin().configuredUrl(ON_EVERY_INTERFACE));
        assertNull(new HttpPlugin(HttpSettings.on("127.0.0.1")).configuredUrl(ON_EVERY_INTERFACE));
    }
}
