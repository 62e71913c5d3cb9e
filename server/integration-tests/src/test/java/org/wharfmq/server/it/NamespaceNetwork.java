package org.wharfmq.server.it;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Each member in a Linux network namespace of its own ({@code ip netns}), started with {@code ip netns exec}: its
 * link to the other members a veth pair to a bridge in a namespace of its own (the switch, where no firewall of this
 * machine applies), and its client link a veth pair to this machine's namespace, where the test and its clients are.
 * Member {@code i}'s address on the switch ({@link MemberNetwork#host}) is 10.A.B.(i+1)/25; its clients reach it at 10.A.B.(130+4i), the other
 * end of a /30 whose first address is this machine's. A cut takes the member's port on the switch down, as a cable
 * pulled out: what the member sends to the others, and they to it, goes nowhere, and no connection is refused; the heal
 * brings it up again. The names (namespaces, this machine's interfaces) and the subnet 10.A.B.0/24 are made of this
 * JVM's process id and a count, so that runs side by side do not meet. Needs root and iproute2's {@code ip}:
 * {@link #whyUnavailable} says why not.
 */
public final class NamespaceNetwork implements MemberNetwork {

    private static final AtomicInteger RUNS = new AtomicInteger();

    /** {@code wh<tag>}: the start of every name of this run. */
    private final String tag;
    private final int subnetA;
    private final int subnetB;
    private final String[] ids;
    private final Path hostsFile;
    private final List<String> namespaces = new ArrayList<>();
    private final List<String> rootLinks = new ArrayList<>();

    private NamespaceNetwork(String tag, int subnet, String[] ids, Path hostsFile) {
        this.tag = tag;
        this.subnetA = 100 + subnet / 256;
        this.subnetB = subnet % 256;
        this.ids = ids;
        this.hostsFile = hostsFile;
    }

    /**
     * Why this machine cannot run members in network namespaces (no {@code ip} command, or {@code ip netns add}
     * refused: not root), or null when it can: a namespace is added and deleted to find out.
     */
    public static String whyUnavailable() {
        String probe = "whprobe" + ProcessHandle.current().pid() + "x" + RUNS.incrementAndGet();
        try {
            Result added = run("ip", "netns", "add", probe);
            if (added.status != 0) {
                return "network namespaces are not available here (they need root): ip netns add said "
                        + added.output.strip();
            }
            run("ip", "netns", "del", probe);
            return null;
        } catch (IOException e) {
            return "no ip command (iproute2) to make network namespaces with: " + e.getMessage();
        }
    }

    /** The namespaces, links and hosts file (in {@code dir}) of members {@code ids}. */
    public static NamespaceNetwork open(Path dir, String[] ids) throws Exception {
        long pid = ProcessHandle.current().pid();
        int run = RUNS.incrementAndGet();
        String tag = Long.toString(pid, 36) + Integer.toString(run, 36);
        int subnet = (int) ((pid * 7 + run) % (150 * 256));
        NamespaceNetwork network = new NamespaceNetwork(tag, subnet, ids, dir.resolve("members.hosts"));
        try {
            network.build();
            return network;
        } catch (Exception | Error e) {
            network.close();
            throw e;
        }
    }

    private void build() throws IOException {
        String sw = namespace("sw");
        ip("netns", "add", sw);
        namespaces.add(sw);
        ip("-n", sw, "link", "add", "br0", "type", "bridge");
        ip("-n", sw, "link", "set", "br0", "up");
        // this machine's name too (the namespaces share it), which the members' JVMs look up
        StringBuilder hosts = new StringBuilder("127.0.0.1 localhost " + InetAddress.getLocalHost().getHostName()
                + "\n");
        for (int i = 0; i < ids.length; i++) {
            String ns = namespace(ids[i]);
            ip("netns", "add", ns);
            namespaces.add(ns);
            ip("-n", ns, "link", "set", "lo", "up");
            // to the other members: r0 in the member's namespace, its port sI on the switch
            ip("link", "add", "r0", "netns", ns, "type", "veth", "peer", "name", port(i), "netns", sw);
            ip("-n", sw, "link", "set", port(i), "master", "br0");
            ip("-n", sw, "link", "set", port(i), "up");
            ip("-n", ns, "addr", "add", memberAddress(i) + "/25", "dev", "r0");
            ip("-n", ns, "link", "set", "r0", "up");
            // clients: c0 in the member's namespace, whIcTAG here
            String root = "wh" + tag + "c" + i;
            ip("link", "add", root, "type", "veth", "peer", "name", "c0", "netns", ns);
            rootLinks.add(root);
            ip("addr", "add", address(129 + 4 * i) + "/30", "dev", root);
            ip("link", "set", root, "up");
            ip("-n", ns, "addr", "add", clientHost(i) + "/30", "dev", "c0");
            ip("-n", ns, "link", "set", "c0", "up");
            hosts.append(memberAddress(i)).append(' ').append(MemberNetwork.host(ids[i])).append('\n');
        }
        Files.writeString(hostsFile, hosts);
    }

    private String namespace(String name) {
        return "wharf-" + tag + "-" + name;
    }

    /** Member {@code i}'s port on the switch. */
    private static String port(int i) {
        return "s" + i;
    }

    private String memberAddress(int i) {
        return address(i + 1);
    }

    private String address(int last) {
        return "10." + subnetA + "." + subnetB + "." + last;
    }

    @Override
    public String clientHost(int i) {
        return address(130 + 4 * i);
    }

    /** No: they come from this machine's end of the client link. */
    @Override
    public boolean clientsLocal() {
        return false;
    }

    @Override
    public List<String> commandPrefix(int i) {
        return List.of("ip", "netns", "exec", namespace(ids[i]));
    }

    @Override
    public List<String> jvmOptions(int i) {
        return List.of("-Djdk.net.hosts.file=" + hostsFile);
    }

    @Override
    public void cut(int i) throws Exception {
        ip("-n", namespace("sw"), "link", "set", port(i), "down");
    }

    @Override
    public void heal(int i) throws Exception {
        ip("-n", namespace("sw"), "link", "set", port(i), "up");
    }

    /**
     * Deletes the namespaces (with their links; the members in them must have ended) and this machine's ends of the
     * client links, trying each even when one fails.
     */
    @Override
    public void close() throws Exception {
        StringBuilder failed = new StringBuilder();
        for (String ns : namespaces) {
            Result r = run("ip", "netns", "del", ns);
            if (r.status != 0) {
                failed.append("ip netns del ").append(ns).append(": ").append(r.output);
            }
        }
        for (String link : rootLinks) {
            // gone with its peer in the namespace deleted, unless that failed
            run("ip", "link", "del", link);
        }
        namespaces.clear();
        rootLinks.clear();
        if (!failed.isEmpty()) {
            throw new IllegalStateException("the network namespaces of the test were not all deleted: " + failed);
        }
    }

    private static void ip(String... arguments) throws IOException {
        List<String> command = new ArrayList<>(List.of("ip"));
        command.addAll(List.of(arguments));
        Result r = run(command.toArray(String[]::new));
        if (r.status != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed (" + r.status + "): " + r.output);
        }
    }

    private record Result(int status, String output) {
    }

    private static Result run(String... command) throws IOException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return new Result(-1, output + " (no answer within 60 s)");
            }
            return new Result(p.exitValue(), output);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted: " + String.join(" ", command), e);
        }
    }
}
