package org.wharfmq.server.http;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Whether a request's {@code Host} header names this machine: asked of the anonymous callers the listener lets in
 * because they come from this machine (a queue manager without users, docs/security.md "Secure defaults"). A page of
 * another site, opened in a browser on this machine, can have its site's name point at 127.0.0.1 once it is loaded
 * (DNS rebinding): its scripts then reach the listener from this machine as requests to their own site, so the browser
 * lets them send the console's header and read the answers, and the listener, going by the address alone, would take
 * them for a local user. Their {@code Host} names that site. So an anonymous local caller passes only when its
 * {@code Host} is absent (no browser omits it), an IP address (a rebinding needs a name), {@code localhost}, or this
 * machine's own host name (as {@link InetAddress#getLocalHost()} gives it, or fully qualified). Answers from memory,
 * but for the first name to compare with the machine's, which are looked up then, once, on the calling (worker)
 * thread.
 */
final class HostCheck {

    private static final Pattern IPV4 = Pattern.compile("(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)"
            + "(\\.(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)){3}");
    private static final Pattern IPV6 = Pattern.compile("\\[[0-9a-fA-F:.]+]");

    /** This machine's host name and fully qualified name, lower case; none when not known; null until first needed. */
    private volatile Set<String> machine;

    /**
     * Whether {@code host} (a {@code Host} header's value, with or without its port; null when the request has none)
     * names this machine.
     */
    boolean namesThisMachine(String host) {
        if (host == null) {
            return true;
        }
        String name = name(host.trim());
        if (name.isEmpty()) {
            return false;
        }
        if (IPV4.matcher(name).matches() || IPV6.matcher(name).matches() || name.equals("localhost")) {
            return true;
        }
        return machine().contains(name);
    }

    /** The name of a Host header's value: without its port and a final dot, lower case. */
    static String name(String host) {
        String name = host;
        if (name.startsWith("[")) {
            int end = name.indexOf(']');
            name = end < 0 ? name : name.substring(0, end + 1);
        } else {
            int colon = name.lastIndexOf(':');
            if (colon >= 0) {
                name = name.substring(0, colon);
            }
        }
        if (name.endsWith(".")) {
            name = name.substring(0, name.length() - 1);
        }
        return name.toLowerCase(Locale.ROOT);
    }

    private Set<String> machine() {
        Set<String> known = machine;
        if (known == null) {
            try {
                InetAddress local = InetAddress.getLocalHost();
                known = Set.copyOf(List.of(local.getHostName().toLowerCase(Locale.ROOT), // the same twice at times
                        local.getCanonicalHostName().toLowerCase(Locale.ROOT)));
            } catch (UnknownHostException | SecurityException e) {
                known = Set.of();
            }
            machine = known;
        }
        return known;
    }
}
