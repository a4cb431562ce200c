package io.rnic.datapath.driver;

import io.rnic.cnc.CncFile;
import io.rnic.cnc.ControlProtocol;
import io.rnic.cnc.QpQueuesLayout;
import io.rnic.shm.FdSocket;
import io.rnic.shm.SharedMemory;
import io.rnic.shm.ShmException;
import io.rnic.testing.ForkedJvm;
import io.rnic.testing.OpenDescriptors;
import org.agrona.concurrent.errors.ErrorLogReader;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The driver's end of memfd passing, driven by raw clients that write commands into the CnC and send over
 * {@code fds.sock} by hand: a token names only a memfd its own client's connection sent, descriptors never used are
 * closed when the client goes, a client whose connection closes is reclaimed without waiting for its keepalive
 * timeout (a minute here), a connection that never attaches is closed after it, and a client of another user in the
 * directory's group is served.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class FdPassingTest
{
    private static final int CQ_ENTRIES = 16;
    private static final Path SETPRIV = Path.of("/usr/bin/setpriv");
    private static final int NOBODY = 65534;
    private static final long CQ_FILE_BYTES = QpQueuesLayout.completionQueueFileLength((int)CQ_ENTRIES);

    private DriverFixture fixture;
    private CncFile cnc;
    private CountersReader counters;

    @BeforeEach
    void start() throws IOException
    {
        fixture = DriverFixture.withTimeoutMs(60_000);
        cnc = CncFile.open(fixture.directory);
        counters = new CountersReader(cnc.countersMetadataBuffer(), cnc.countersValuesBuffer(),
            StandardCharsets.US_ASCII);
    }

    @AfterEach
    void stop() throws IOException
    {
        cnc.close();
        fixture.close();
    }

    @Test
    void shouldTakeATokenOnlyFromTheConnectionOfTheClientThatNamesIt()
    {
        try (RawClient first = new RawClient(cnc, fixture.directory, 0x1111);
            RawClient second = new RawClient(cnc, fixture.directory, 0x2222);
            SharedMemory memory = SharedMemory.create("rnic-test-cq", CQ_FILE_BYTES, false))
        {
            first.attach();
            second.attach();
            first.sendFd(1, memory.fd());

            assertEquals("error 14: create_cq: no memfd with token 1 came over this client's fds.sock connection: " +
                "send it there before the command", second.createCq(1, CQ_FILE_BYTES, CQ_ENTRIES),
                "the other client names the first one's token");
            assertTrue(first.createCq(1, CQ_FILE_BYTES, CQ_ENTRIES).startsWith("result "),
                "the token is still its own client's");

            // a message naming another client's id over one's own connection is refused, its fd closed
            assertTrue(second.socket.send(first.clientId, 2, memory.fd()));
            assertTrue(second.allocPd().startsWith("result "));
            assertEquals(1, counter("driver fds.sock messages refused"));
            assertEquals("error 14: create_cq: no memfd with token 2 came over this client's fds.sock connection: " +
                "send it there before the command", first.createCq(2, CQ_FILE_BYTES, CQ_ENTRIES));
            assertEquals(1, OpenDescriptors.ofMemfd("rnic-test-cq"), "the memfd's own, the one the CQ maps is closed");
        }
    }

    @Test
    void shouldRefuseAMemfdOfAnotherSizeThanTheCommandSays()
    {
        try (RawClient client = new RawClient(cnc, fixture.directory, 0x3333);
            SharedMemory memory = SharedMemory.create("rnic-test-large", 2 * CQ_FILE_BYTES, false))
        {
            client.attach();
            client.sendFd(1, memory.fd());

            final String answer = client.createCq(1, CQ_FILE_BYTES, CQ_ENTRIES);
            assertTrue(answer.startsWith("error 14: create_cq: received fd ") && answer.endsWith(" is " +
                2 * CQ_FILE_BYTES + " bytes, not the " + CQ_FILE_BYTES + " expected: pass the length the memory was " +
                "created with"), answer);
            assertEquals(1, OpenDescriptors.ofMemfd("rnic-test-large"), "the refused fd is closed");
        }
    }

    @Test
    void shouldCloseTheMemfdOfACommandRefusedBeforeItMapsIt()
    {
        try (RawClient client = new RawClient(cnc, fixture.directory, 0x3334);
            SharedMemory memory = SharedMemory.create("rnic-test-refused", CQ_FILE_BYTES, false))
        {
            client.attach();
            client.sendFd(1, memory.fd());
            client.sendFd(2, memory.fd());
            client.sendFd(3, memory.fd());

            // refused by the checks before the mapping, each command another way: its memfd goes with the answer
            assertTrue(client.createCq(1, CQ_FILE_BYTES, 0).startsWith("error "), "size 0");
            assertTrue(client.createCq(2, CQ_FILE_BYTES + 4096, CQ_ENTRIES)
                .startsWith("error "), "a file length the layout does not give");
            assertTrue(client.registerMr(99, 3, 4096, 0, 4096, 0, 0).startsWith("error "),
                "an unknown PD");

            assertEquals(1, OpenDescriptors.ofMemfd("rnic-test-refused"), "only ours is open: the driver kept none");
        }
    }

    @Test
    void shouldCloseTheMemfdsAClientNeverUsedWhenItDetaches()
    {
        try (RawClient client = new RawClient(cnc, fixture.directory, 0x4444);
            SharedMemory memory = SharedMemory.create("rnic-test-unused", 4096, false))
        {
            client.attach();
            client.sendFd(7, memory.fd());
            client.sendFd(8, memory.fd());
            assertTrue(client.allocPd().startsWith("result "));
            assertEquals(3, OpenDescriptors.ofMemfd("rnic-test-unused"), "ours and the two the driver holds");

            assertTrue(client.detach().startsWith("result "));

            assertEquals(1, OpenDescriptors.ofMemfd("rnic-test-unused"));
        }
    }

    @Test
    void shouldReclaimAClientWhoseConnectionClosesAtOnce()
    {
        try (RawClient client = new RawClient(cnc, fixture.directory, 0x5555);
            SharedMemory memory = SharedMemory.create("rnic-test-died", CQ_FILE_BYTES, false))
        {
            client.attach();
            client.sendFd(1, memory.fd());
            assertTrue(client.createCq(1, CQ_FILE_BYTES, CQ_ENTRIES).startsWith("result "));
            assertEquals(1, fixture.driver.clientCount());

            client.socket.close(); // what the kernel does when the client dies

            await(() -> fixture.driver.clientCount() == 0, "the client is reclaimed long before its 60 s timeout");
            assertEquals(1, counter("driver clients departed without detaching (fds.sock closed)"));
            assertEquals(0, counter("driver client timeouts"));
            // a departure is an event of the driver's life: one line of its output, no error in stat's error log
            assertEquals(List.of("client 5555 (pid " + ProcessHandle.current().pid() + "; fds.sock peer pid " +
                ProcessHandle.current().pid() + " uid 0 gid 0) departed without detaching (its fds.sock connection " +
                "closed: it exited or was killed); its QPs, CQs and memory regions are destroyed"),
                List.copyOf(fixture.events));
            assertEquals("", errors());
            await(() -> OpenDescriptors.ofMemfd("rnic-test-died") == 1, "the CQ's mapping is gone");
            assertTrue(client.allocPd().startsWith("error 107: "), "it must attach again");
        }
    }

    @Test
    void shouldServeAClientOfAnotherUserInTheDirectorysGroup(@TempDir final Path copies)
        throws IOException, InterruptedException
    {
        assumeTrue(Files.isExecutable(SETPRIV) && "root".equals(System.getProperty("user.name")),
            "needs root and setpriv to start a client as another user");
        final int group = ((Number)Files.getAttribute(fixture.directory, "unix:gid")).intValue();
        final ForkedJvm.Result result = ForkedJvm.run(
            List.of(SETPRIV.toString(), "--reuid=" + NOBODY, "--regid=" + group, "--clear-groups"),
            ForkedJvm.readableClassPath(copies), DriverClientMain.class, Set.of(), fixture.directory.toString());

        assertEquals(0, result.exit(), result.toString());
        assertTrue(result.stdout().matches("attached as [0-9a-f]+: rkey true, qpn true\n"), result.toString());
        await(() -> fixture.driver.clientCount() == 0, "the exited client is reclaimed before its 60 s timeout");
        assertEquals(1, counter("driver clients departed without detaching (fds.sock closed)"));
        assertEquals(0, counter("driver command errors"));
        assertEquals("", errors());
        assertEquals(1, fixture.events.size(), fixture.events.toString());
        assertTrue(fixture.events.peek().matches(".*; fds\\.sock peer pid [0-9]+ uid " + NOBODY + " gid " + group +
            "\\) departed without detaching .*"), fixture.events.toString());
    }

    /** The driver's distinct errors, as stat reads them. */
    private String errors()
    {
        final StringBuilder errors = new StringBuilder();
        ErrorLogReader.read(cnc.errorLogBuffer(), (count, first, last, error) -> errors.append(error));
        return errors.toString();
    }

    @Test
    void shouldCloseAConnectionThatNeverAttachesOnceTheClientTimeoutPasses()
    {
        fixture.restart(TimeUnit.MILLISECONDS.toNanos(300));
        try (FdSocket socket = FdSocket.connect(fixture.directory.resolve(ControlProtocol.FD_SOCKET_FILE_NAME)))
        {
            assertTrue(socket.send(0x8888, 1, -1), "hello");

            await(() ->
            {
                try
                {
                    socket.send(0x8888, 2, -1);
                    return false;
                }
                catch (final ShmException closed)
                {
                    return closed.getMessage().contains("Broken pipe");
                }
            }, "the driver closes its end");
        }
    }

    @Test
    void shouldRefuseAnAttachWhoseNonceNoConnectionSent()
    {
        try (RawClient client = new RawClient(cnc, fixture.directory, 0x6666))
        {
            assertEquals("error 22: attach: no fds.sock connection said hello with this client's id and nonce: " +
                "connect there and say hello before attaching", client.attach(
                ProcessHandle.current().pid(), client.nonce + 1, CncFile.VERSION));
            assertEquals(0, fixture.driver.clientCount());
        }
    }

    @Test
    void shouldRefuseAnAttachOfAnotherProtocolVersionNamingBoth()
    {
        try (RawClient client = new RawClient(cnc, fixture.directory, 0x8888))
        {
            final int older = CncFile.VERSION - 1;
            assertEquals("error 71: attach: the client speaks protocol version " + older + ", this driver version " +
                CncFile.VERSION + ": use a client library of the driver's rnic build (or restart the driver from " +
                "the client's)", client.attach(ProcessHandle.current().pid(), client.nonce, older));
            assertEquals(0, fixture.driver.clientCount(), "not attached");

            assertTrue(client.attach(ProcessHandle.current().pid(), client.nonce, CncFile.VERSION)
                .startsWith("result "), "the same client, of this version, attaches");
        }
    }

    @Test
    void shouldLetAClientAttachedWithoutANonceUseNoMemory()
    {
        try (RawClient client = new RawClient(cnc, fixture.directory, 0x7777))
        {
            assertTrue(client.attach(ProcessHandle.current().pid(), 0, CncFile.VERSION).startsWith("result "));

            assertEquals("error 14: create_cq: this client attached without a connection to fds.sock (no nonce in " +
                "its attach): it can pass no memory", client.createCq(1, CQ_FILE_BYTES, CQ_ENTRIES));
        }
    }

    private long counter(final String label)
    {
        final long[] value = { Long.MIN_VALUE };
        counters.forEach((id, each) ->
        {
            if (each.equals(label))
            {
                value[0] = counters.getCounterValue(id);
            }
        });
        return value[0];
    }

    private static void await(final BooleanSupplier condition, final String what)
    {
        final long deadlineNs = System.nanoTime() + 10_000_000_000L;
        while (!condition.getAsBoolean())
        {
            assertTrue(System.nanoTime() < deadlineNs, what);
            Thread.onSpinWait();
        }
    }
}
