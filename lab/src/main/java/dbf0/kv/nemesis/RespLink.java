package dbf0.kv.nemesis;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * One blocking RESP connection to one node: a command out, its reply back, within a time limit.
 * Opening it is separate from using it, because the difference matters to a history: a connection
 * that never opened carried no command, while one that fails after a command was written leaves the
 * command's outcome unknown.
 */
final class RespLink implements AutoCloseable {

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    private RespLink(Socket socket) throws IOException {
        this.socket = socket;
        this.in = new BufferedInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
    }

    /**
     * Connects to {@code address}; a reply that takes longer than {@code replyTimeout} ends {@link
     * #call} with a {@link java.net.SocketTimeoutException}.
     */
    static RespLink open(InetSocketAddress address, Duration connectTimeout, Duration replyTimeout)
            throws IOException {
        Socket socket = new Socket();
        try {
            socket.setTcpNoDelay(true);
            socket.connect(address, (int) Math.max(1, connectTimeout.toMillis()));
            socket.setSoTimeout((int) Math.max(1, replyTimeout.toMillis()));
            return new RespLink(socket);
        } catch (IOException e) {
            socket.close();
            throw e;
        }
    }

    /** Sends one command (an array of bulk strings) and reads its reply. */
    Reply call(byte[]... args) throws IOException {
        out.write(encode(args));
        out.flush();
        return read(in);
    }

    static byte[] encode(byte[]... args) {
        ByteArrayOutputStream b = new ByteArrayOutputStream(64);
        b.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
        for (byte[] a : args) {
            b.writeBytes(("$" + a.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            b.writeBytes(a);
            b.writeBytes(CRLF);
        }
        return b.toByteArray();
    }

    private static final byte[] CRLF = {'\r', '\n'};

    /** Reads one reply of a type SET or GET can get; any other is a protocol error. */
    static Reply read(InputStream in) throws IOException {
        int type = in.read();
        if (type < 0) {
            throw new EOFException("the connection closed before a reply");
        }
        String line = line(in);
        return switch (type) {
            case '+' -> Reply.simple(line);
            case '-' -> Reply.error(line);
            case ':' -> new Reply(Reply.Type.INTEGER, line.getBytes(StandardCharsets.US_ASCII));
            case '$' -> bulk(in, line);
            default ->
                    throw new IOException(
                            "not a reply to SET or GET: starts with byte " + type + ": " + line);
        };
    }

    private static Reply bulk(InputStream in, String length) throws IOException {
        int n;
        try {
            n = Integer.parseInt(length);
        } catch (NumberFormatException e) {
            throw new IOException("bad bulk length: " + length, e);
        }
        if (n < 0) {
            return Reply.NIL;
        }
        byte[] bytes = in.readNBytes(n);
        if (bytes.length < n || in.read() != '\r' || in.read() != '\n') {
            throw new EOFException("the connection closed inside a bulk reply");
        }
        return Reply.bulk(bytes);
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream(32);
        int c;
        while ((c = in.read()) != '\r') {
            if (c < 0) {
                throw new EOFException("the connection closed inside a reply");
            }
            b.write(c);
        }
        if (in.read() != '\n') {
            throw new IOException("a reply line without \\r\\n");
        }
        return b.toString(StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing: nothing to do about it
        }
    }
}
