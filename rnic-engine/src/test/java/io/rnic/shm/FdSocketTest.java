package io.rnic.shm;

import io.rnic.testing.ForkedJvm;
import io.rnic.testing.OpenDescriptors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Descriptors passed over {@link FdSocket} to an {@link FdSocketServer}: with their token and the sender's
 * credentials, from this JVM, from another that has exited since, and from another user the socket's mode admits;
 * the server sees a peer go.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class FdSocketTest
{
    private static final long LENGTH_BYTES = 64 * 1024;
    private static final Path SETPRIV = Path.of("/usr/bin/setpriv");
    private static final int NOBODY = 65534;

    @TempDir
    Path directory;

    @Test
    void shouldHandTheTokenAndTheSendersCredentialsWithTheDescriptor() throws IOException
    {
        try (ReceivedFds received = new ReceivedFds(directory);
            SharedMemory created = SharedMemory.create("rnic-test-token", LENGTH_BYTES, false))
        {
            assertTrue(received.client.send(-2L, Long.MIN_VALUE, created.fd()));
            received.pollUntil(() -> received.messages.size() == 1);

            final ReceivedFds.Message message = received.messages.getFirst();
            assertEquals(-2L, message.tokenHigh());
            assertEquals(Long.MIN_VALUE, message.tokenLow());
            assertEquals(List.of(message.connection()), received.connected);
            assertEquals(ProcessHandle.current().pid(), message.connection().pid());
            assertEquals(((Number)Files.getAttribute(Path.of("/proc/self"), "unix:uid")).longValue(),
                message.connection().uid());
            assertEquals(((Number)Files.getAttribute(Path.of("/proc/self"), "unix:gid")).longValue(),
                message.connection().gid());
            try (SharedMemory mapped = SharedMemory.fromReceivedFd(message.fd(), LENGTH_BYTES))
            {
                created.segment().set(JAVA_LONG, 0, 0x5EED_5EEDL);
                assertEquals(0x5EED_5EEDL, mapped.segment().get(JAVA_LONG, 0));
            }
            assertEquals(0, received.malformed);
        }
    }

    @Test
    void shouldSendATokenWithoutADescriptor()
    {
        try (ReceivedFds received = new ReceivedFds(directory))
        {
            assertTrue(received.client.send(7, 8, -1));
            received.pollUntil(() -> received.messages.size() == 1);

            assertEquals(new ReceivedFds.Message(received.connected.getFirst(), 7, 8, -1), received.messages.getFirst());
        }
    }

    @Test
    void shouldDropAMessageWithTwoDescriptorsAndCloseBoth()
    {
        final String name = "rnic-test-two-fds";
        try (ReceivedFds received = new ReceivedFds(directory);
            SharedMemory created = SharedMemory.create(name, LENGTH_BYTES, false))
        {
            assertTrue(received.client.send(1, 2, created.fd(), created.fd()));
            assertTrue(received.client.send(1, 3, -1));
            received.pollUntil(() -> received.messages.size() == 1);

            assertEquals(1, received.malformed);
            assertEquals(3, received.messages.getFirst().tokenLow(), "the connection goes on");
            assertEquals(1, OpenDescriptors.ofMemfd(name), "the creator's only: both received ones are closed");
        }
    }

    @Test
    void shouldSeeThePeerCloseItsEnd()
    {
        try (ReceivedFds received = new ReceivedFds(directory))
        {
            received.pollUntil(() -> received.connected.size() == 1);
            assertEquals(1, received.server.connectionCount());

            received.client.close();
            received.pollUntil(() -> received.closed.size() == 1);

            assertEquals(received.connected, received.closed);
            assertTrue(received.closed.getFirst().isClosed());
            assertEquals(0, received.server.connectionCount());
            final ShmException refused = assertThrows(ShmException.class, () -> received.client.send(1, 2, -1));
            assertTrue(refused.getMessage().endsWith(" is closed"), refused.getMessage());
        }
    }

    @Test
    void shouldRefuseToConnectWhereNoServerListens()
    {
        final Path path = directory.resolve("fds.sock");
        final ShmException refused = assertThrows(ShmException.class, () -> FdSocket.connect(path));

        assertEquals("cannot connect to " + path + ": No such file or directory (errno 2): is the rnic driver " +
            "running, and is this process its user or in its group (the socket is mode 0660)?", refused.getMessage());
    }

    @Test
    void shouldBindTheSocketForOwnerAndGroupOnly() throws IOException
    {
        try (FdSocketServer server = FdSocketServer.bind(directory.resolve("fds.sock")))
        {
            assertEquals("rw-rw----", PosixFilePermissions.toString(Files.getPosixFilePermissions(server.path())));
        }
        assertTrue(Files.notExists(directory.resolve("fds.sock")), "closing removes the path");
    }

    @Test
    void shouldReceiveTheMemoryOfAnotherProcessThatHasExitedSince() throws IOException, InterruptedException
    {
        try (FdSocketServer server = FdSocketServer.bind(directory.resolve("fds.sock")))
        {
            final ForkedJvm.Result result = ForkedJvm.run(FdSenderMain.class, Set.of(), server.path().toString(),
                Long.toString(LENGTH_BYTES), "11", "12");
            assertEquals(0, result.exit(), result.toString());
            assertTrue(result.stdout().startsWith("sent by "), result.toString());

            assertMemoryOfTheSender(server, Long.parseLong(result.stdout().substring(8).trim()));
        }
    }

    @Test
    void shouldTakeMemoryFromAnotherUserInTheSocketsGroup() throws IOException, InterruptedException
    {
        assumeTrue(Files.isExecutable(SETPRIV) && "root".equals(System.getProperty("user.name")),
            "needs root and setpriv to start a client as another user");
        final int group = ((Number)Files.getAttribute(directory, "unix:gid")).intValue();
        Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwxrwx---"));
        try (FdSocketServer server = FdSocketServer.bind(directory.resolve("fds.sock")))
        {
            final ForkedJvm.Result inGroup = ForkedJvm.run(
                List.of(SETPRIV.toString(), "--reuid=" + NOBODY, "--regid=" + group, "--clear-groups"),
                FdSenderMain.class, Set.of(), server.path().toString(), Long.toString(LENGTH_BYTES), "11", "12");
            assertEquals(0, inGroup.exit(), inGroup.toString());
            assertTrue(inGroup.stdout().startsWith("sent by "), inGroup.toString());
            final FdSocketServer.Connection connection =
                assertMemoryOfTheSender(server, Long.parseLong(inGroup.stdout().substring(8).trim()));
            assertEquals(NOBODY, connection.uid());
            assertEquals(group, connection.gid());

            // the socket is 0660: a user outside its group cannot connect, whatever the directory lets it see
            Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwxrwx--x"));
            final ForkedJvm.Result outside = ForkedJvm.run(
                List.of(SETPRIV.toString(), "--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups"),
                FdSenderMain.class, Set.of(), server.path().toString(), Long.toString(LENGTH_BYTES), "11", "12");
            assertEquals("cannot connect to " + server.path() + ": Permission denied (errno 13): is the rnic " +
                "driver running, and is this process its user or in its group (the socket is mode 0660)?\n",
                outside.stdout(), outside.toString());
        }
    }

    /** Polls {@code server} for the sender's one message and its close, and checks the memory it carried. */
    private static FdSocketServer.Connection assertMemoryOfTheSender(final FdSocketServer server, final long pid)
    {
        final ReceivedFds.Message[] message = new ReceivedFds.Message[1];
        final boolean[] closed = new boolean[1];
        final FdSocketServer.Handler handler = new FdSocketServer.Handler()
        {
            public void onConnected(final FdSocketServer.Connection connection)
            {
            }

            public void onMessage(
                final FdSocketServer.Connection connection, final long tokenHigh, final long tokenLow, final int fd)
            {
                message[0] = new ReceivedFds.Message(connection, tokenHigh, tokenLow, fd);
            }

            public void onMalformed(final FdSocketServer.Connection connection)
            {
                throw new AssertionError("malformed");
            }

            public void onClosed(final FdSocketServer.Connection connection)
            {
                closed[0] = true;
            }
        };
        final long deadlineNs = System.nanoTime() + 10_000_000_000L;
        while (message[0] == null || !closed[0])
        {
            assertTrue(System.nanoTime() < deadlineNs, "the sender's message and close did not arrive");
            server.poll(handler);
        }
        assertEquals(11, message[0].tokenHigh());
        assertEquals(12, message[0].tokenLow());
        assertEquals(pid, message[0].connection().pid(), "SO_PEERCRED's pid");
        try (SharedMemory memory = SharedMemory.fromReceivedFd(message[0].fd(), LENGTH_BYTES))
        {
            final MemorySegment segment = memory.segment();
            for (long i = 0; i < LENGTH_BYTES; i++)
            {
                assertEquals(FdSenderMain.pattern(i), segment.get(JAVA_BYTE, i), "byte " + i);
            }
        }
        return message[0].connection();
    }
}
