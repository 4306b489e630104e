package dbf0.kv.server.cluster;

import dbf0.kv.cluster.ClusterNode;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A blocking RESP connection from one node to another, for the two things a node asks a peer: its
 * id (CLUSTER MYID) and to take keys (MIGRATE's {@link Restore}). It sends a command as an array of
 * bulk strings and reads one reply: a simple string, an error, an integer or a bulk string. A reply
 * line is at most {@value #MAX_LINE} bytes and a bulk string at most {@value #MAX_BULK}: a peer
 * cannot make this node allocate more.
 */
final class PeerLink implements Closeable {

    static final int MAX_LINE = 64 * 1024;
    static final int MAX_BULK = 1 << 20;

    /** One reply: its type byte ({@code + - : $}) and its text (a bulk string's bytes as text). */
    record Answer(char type, String text) {
        boolean ok() {
            return type != '-';
        }
    }

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    PeerLink(String host, int port, int timeoutMillis) throws IOException {
        socket = new Socket();
        try {
            socket.connect(new InetSocketAddress(host, port), timeoutMillis);
            socket.setSoTimeout(timeoutMillis);
            socket.setTcpNoDelay(true);
            in = new BufferedInputStream(socket.getInputStream());
            out = new BufferedOutputStream(socket.getOutputStream(), 64 * 1024);
        } catch (IOException e) {
            socket.close();
            throw e;
        }
    }

    PeerLink(ClusterNode node, int timeoutMillis) throws IOException {
        this(node.host(), node.port(), timeoutMillis);
    }

    /** Sends a command and reads its reply. */
    Answer call(List<byte[]> command) throws IOException {
        out.write(
                ('*' + Integer.toString(command.size()) + "\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
        for (byte[] arg : command) {
            out.write(
                    ('$' + Integer.toString(arg.length) + "\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
            out.write(arg);
            out.write('\r');
            out.write('\n');
        }
        out.flush();
        return read();
    }

    private Answer read() throws IOException {
        int type = in.read();
        if (type < 0) {
            throw new EOFException("the peer closed the connection");
        }
        String line = line();
        return switch (type) {
            case '+', '-', ':' -> new Answer((char) type, line);
            case '$' -> {
                int length = Integer.parseInt(line);
                if (length < 0) {
                    yield new Answer('$', null);
                }
                if (length > MAX_BULK) {
                    throw new IOException("the peer's reply is over " + MAX_BULK + " bytes");
                }
                byte[] bytes = in.readNBytes(length + 2);
                if (bytes.length != length + 2) {
                    throw new EOFException("the peer closed the connection inside a reply");
                }
                yield new Answer('$', new String(bytes, 0, length, StandardCharsets.UTF_8));
            }
            default -> throw new IOException("unexpected reply type '" + (char) type + "'");
        };
    }

    private String line() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) != '\r') {
            if (b < 0) {
                throw new EOFException("the peer closed the connection inside a reply");
            }
            if (line.size() >= MAX_LINE) {
                throw new IOException("a reply line over " + MAX_LINE + " bytes");
            }
            line.write(b);
        }
        if (in.read() != '\n') {
            throw new IOException("a reply line without its LF");
        }
        return line.toString(StandardCharsets.UTF_8);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
