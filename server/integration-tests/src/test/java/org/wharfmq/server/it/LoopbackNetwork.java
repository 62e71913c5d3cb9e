package org.wharfmq.server.it;


import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Three members on this machine's loopback, each path between two of them through a {@link TcpProxy} of its own. Each
 * member's JVM resolves host names through a hosts file of its own ({@code jdk.net.hosts.file}): its own name to
 * 127.0.0.1, another member's to a loopback address of the path between the two (127.0.FROM.TO), where a proxy relays
 * to that member. So every path, each way, can be cut on its own, without root and without network namespaces.
 */
public final class LoopbackNetwork implements MemberNetwork {

    /** The paths between members, [from][to]: the proxy member FROM reaches member TO through. */
    private final TcpProxy[][] links;
    private final Path[] hostsFiles;

    private LoopbackNetwork(TcpProxy[][] links, Path[] hostsFiles) {
        this.links = links;
        this.hostsFiles = hostsFiles;
    }

    /** The proxies and hosts files (in {@code dir}) of members {@code ids} listening on {@code memberPorts}. */
    public static LoopbackNetwork open(Path dir, String[] ids, int[] memberPorts) throws Exception {
        int n = ids.length;
        TcpProxy[][] links = new TcpProxy[n][n];
        Path[] hostsFiles = new Path[n];
        LoopbackNetwork network = new LoopbackNetwork(links, hostsFiles);
        try {
            String localHost = InetAddress.getLocalHost().getHostName();
            for (int i = 0; i < n; i++) {
                StringBuilder hosts = new StringBuilder("127.0.0.1 localhost " + localHost + " "
                        + MemberNetwork.host(ids[i]) + "\n");
                for (int j = 0; j < n; j++) {
                    if (j != i) {
                        InetAddress path = InetAddress.getByAddress(new byte[] {127, 0, (byte) (i + 1),
                                (byte) (j + 1)});
                        links[i][j] = TcpProxy.start(path, memberPorts[j], memberPorts[j]);
                        hosts.append(path.getHostAddress()).append(' ').append(MemberNetwork.host(ids[j]))
                                .append('\n');
                    }
                }
                hostsFiles[i] = Files.writeString(dir.resolve(ids[i] + ".hosts"), hosts);
            }
            return network;
        } catch (Exception | Error e) {
            network.close();
            throw e;
        }
    }

    @Override
    public String clientHost(int i) {
        return "127.0.0.1";
    }

    @Override
    public boolean clientsLocal() {
        return true;
    }

    @Override
    public List<String> commandPrefix(int i) {
        return List.of();
    }

    @Override
    public List<String> jvmOptions(int i) {
        return List.of("-Djdk.net.hosts.file=" + hostsFiles[i]);
    }

    @Override
    public void cut(int i) {
        for (TcpProxy link : paths(i)) {
            link.cut();
        }
    }

    @Override
    public void heal(int i) {
        for (TcpProxy link : paths(i)) {
            link.heal();
        }
    }

    /** The proxies between member {@code i} and the others, both ways. */
    private List<TcpProxy> paths(int i) {
        List<TcpProxy> paths = new ArrayList<>();
        for (int j = 0; j < links.length; j++) {
            if (j != i) {
                paths.add(links[i][j]);
                paths.add(links[j][i]);
            }
        }
        return paths;
    }

    @Override
    public void close() throws Exception {
        for (TcpProxy[] from : links) {
            for (TcpProxy link : from) {
                if (link != null) {
                    link.close();
                }
            }
        }
    }
}
