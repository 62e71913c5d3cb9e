package org.wharfmq.server.it;

import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A gate in front of the server that answers a HELLO of another version than 2 as a server before version 3 does
 * (ERROR UNSUPPORTED_VERSION, then close) and relays every other connection as it is.
 */
final class VersionTwoGate implements AutoCloseable {
    private final ServerSocket listener;
    private final int serverPort;
    private final AtomicInteger refused = new AtomicInteger();
    private final AtomicInteger relayed = new AtomicInteger();

    private VersionTwoGate(ServerSocket listener, int serverPort) {
        this.listener = listener;
        this.serverPort = serverPort;
    }

    static VersionTwoGate start(int serverPort) throws IOException {
        VersionTwoGate gate = new VersionTwoGate(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()),
                serverPort);
        Thread accept = new Thread(gate::accept, "version-2-gate");
        accept.setDaemon(true);
        accept.start();
        return gate;
    }

    String url() {
        return "tcp://127.0.0.1:" + listener.getLocalPort();
    }

    int refused() {
        return refused.get();
    }

    int relayed() {
        return relayed.get();
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                Thread handler = new Thread(() -> handle(client), "version-2-gate-connection");
                handler.setDaemon(true);
                handler.start();
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    /** Reads the HELLO: {@code int length, byte type, int magic, short version, ...}. */
    private void handle(Socket client) {
        try {
            DataInputStream in = new DataInputStream(client.getInputStream());
            int length = in.readInt();
            byte[] hello = new byte[length];
            in.readFully(hello);
            int version = ((hello[5] & 0xff) << 8) | (hello[6] & 0xff);
            if (version != 2) {
                refused.incrementAndGet();
                client.getOutputStream().write(RawFrameClient.encode(new Frame.Error(0,
                        ErrorCode.UNSUPPORTED_VERSION, "Protocol version " + version + " is not supported: this"
                        + " server speaks version 2; upgrade the client to a Wharf client of the server's"
                        + " version.", 0, 0)));
                client.close();
                return;
            }
            relayed.incrementAndGet();
            Socket server = new Socket(InetAddress.getLoopbackAddress(), serverPort);
            OutputStream toServer = server.getOutputStream();
            toServer.write(new byte[] {(byte) (length >>> 24), (byte) (length >>> 16), (byte) (length >>> 8),
                    (byte) length});
            toServer.write(hello);
            Thread back = new Thread(() -> pump(server, client), "version-2-gate-back");
            back.setDaemon(true);
            back.start();
            pump(client, server);
        } catch (IOException e) {
            closeQuietly(client);
        }
    }

    private static void pump(Socket from, Socket to) {
        byte[] buffer = new byte[64 * 1024];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                out.write(buffer, 0, n);
            }
        } catch (IOException e) {
            // one side ended: so does the other
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // closing
        }
    }

    @Override
    public void close() throws IOException {
        listener.close();
    }
}
