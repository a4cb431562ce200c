package io.rnic.tools;

import io.rnic.cli.CliRunner;
import io.rnic.sim.VirtualClock;
import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A tool refuses an interface whose port would not be ACTIVE (perftest's check), in one line before it opens
 * anything: one that is down at once, and one that is up without a carrier (a veth whose peer is down) after a grace
 * in which a carrier that comes is taken. The veth pairs are made here, uniquely named, and deleted even when the
 * test fails; nothing is sent on them.
 */
class InterfaceStateTest
{
    private static final Path SYS_CLASS_NET = Path.of("/sys/class/net");

    @Test
    void shouldRefuseAnInterfaceThatIsDownOrHasNoCarrier() throws Exception
    {
        try (Veth veth = Veth.create())
        {
            final String a = veth.a;
            // servers on a free TCP port: the refusal comes before any listening, and nothing is sent anywhere
            final String port = String.valueOf(freeTcpPort());
            final List<String> down = CliRunner.run("write-bw", "-d", a, "-p", port);
            assertEquals("2", down.get(0), down.toString());
            assertEquals("rnic write-bw: interface " + a + " is down: bring it up (ip link set " + a + " up) or " +
                "name another with -d", down.get(2).lines().findFirst().orElseThrow());

            assertTrue(ip("link", "set", a, "up"));
            final String grace = System.getProperty(InterfaceState.GRACE_MS_PROP_NAME);
            System.setProperty(InterfaceState.GRACE_MS_PROP_NAME, "50"); // the carrier never comes: not 2 s for it
            final List<String> noCarrier;
            try
            {
                noCarrier = CliRunner.run("send-lat", "-d", a, "-p", port);
            }
            finally
            {
                if (grace == null)
                {
                    System.clearProperty(InterfaceState.GRACE_MS_PROP_NAME);
                }
                else
                {
                    System.setProperty(InterfaceState.GRACE_MS_PROP_NAME, grace);
                }
            }
            assertEquals("2", noCarrier.get(0), noCarrier.toString());
            assertEquals("rnic send-lat: interface " + a + " is up but its link is lowerlayerdown after 50 ms (no " +
                "carrier: a cable, or a veth whose peer is down): the port is not active",
                noCarrier.get(2).lines().findFirst().orElseThrow());
            assertEquals("", noCarrier.get(1));
        }
    }

    /**
     * A tool started right after {@code ip link set up}: the carrier comes a few milliseconds later (here: once the
     * check is seen waiting for it, the peer is brought up), and the check takes the interface instead of refusing it.
     */
    @Test
    void shouldWaitForACarrierThatComesAfterTheCheckBegan() throws Exception
    {
        try (Veth veth = Veth.create())
        {
            final String a = veth.a;
            assertTrue(ip("link", "set", a, "up"));
            final CountDownLatch waiting = new CountDownLatch(1);
            final CountDownLatch carrierUp = new CountDownLatch(1);
            final AtomicInteger pauses = new AtomicInteger();
            final InterfaceState state = new InterfaceState(SYS_CLASS_NET, TimeUnit.SECONDS.toNanos(30),
                SystemNanoClock.INSTANCE, ns ->
                {
                    if (pauses.getAndIncrement() == 0)
                    {
                        waiting.countDown();
                        awaitQuietly(carrierUp);
                    }
                    LockSupport.parkNanos(ns);
                });
            final CompletableFuture<Void> check = CompletableFuture.runAsync(() -> state.checkActive(a));

            while (!waiting.await(10, TimeUnit.MILLISECONDS))
            {
                assertTrue(!check.isDone(), () -> "the check did not wait for the carrier: " + check.handle(
                    (ok, ex) -> ex == null ? "it returned" : ex.getCause().getMessage()).join());
            }
            assertTrue(ip("link", "set", veth.b, "up"));
            while (!operstate(a).equals("up"))
            {
                LockSupport.parkNanos(1_000_000); // the kernel's link watch, a few milliseconds
            }
            carrierUp.countDown();
            check.get(30, TimeUnit.SECONDS); // no refusal
            assertTrue(pauses.get() >= 1);
        }
    }

    /** The carrier never comes: refused after the grace (a virtual clock's, so the test does not wait for it). */
    @Test
    void shouldRefuseAfterTheGraceWhenTheCarrierNeverComes() throws Exception
    {
        try (Veth veth = Veth.create())
        {
            final String a = veth.a;
            assertTrue(ip("link", "set", a, "up"));
            final VirtualClock clock = new VirtualClock(0);
            final InterfaceState state = new InterfaceState(SYS_CLASS_NET,
                TimeUnit.MILLISECONDS.toNanos(InterfaceState.GRACE_MS_DEFAULT), clock, clock::advanceNs);

            final IllegalArgumentException refused =
                assertThrows(IllegalArgumentException.class, () -> state.checkActive(a));
            assertEquals("interface " + a + " is up but its link is lowerlayerdown after 2000 ms (no carrier: a " +
                "cable, or a veth whose peer is down): the port is not active", refused.getMessage());
            assertTrue(clock.nanoTime() >= TimeUnit.MILLISECONDS.toNanos(InterfaceState.GRACE_MS_DEFAULT),
                "refused before the grace: at " + clock.nanoTime() + " ns");
        }
    }

    /** A veth pair made for one test, both ends down, uniquely named; deleted on close, even when the test fails. */
    private record Veth(String a, String b) implements AutoCloseable
    {
        static Veth create() throws IOException, InterruptedException
        {
            assumeTrue(NetnsTopology.available(), "needs root and ip(8)");
            // this helper's prefix, then 6 hex digits: within the 15 characters of an interface name
            final String name = "tdc" +
                Integer.toHexString(0x10_0000 + ThreadLocalRandom.current().nextInt(0xF0_0000));
            final Veth veth = new Veth(name + "a", name + "b");
            assumeTrue(ip("link", "add", veth.a, "type", "veth", "peer", "name", veth.b), "cannot make a veth pair");
            return veth;
        }

        @Override
        public void close() throws IOException, InterruptedException
        {
            ip("link", "del", a);
        }
    }

    private static String operstate(final String iface) throws IOException
    {
        return Files.readString(SYS_CLASS_NET.resolve(iface).resolve("operstate")).trim();
    }

    private static void awaitQuietly(final CountDownLatch latch)
    {
        try
        {
            latch.await(30, TimeUnit.SECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    private static int freeTcpPort() throws IOException
    {
        try (ServerSocket socket = new ServerSocket(0))
        {
            return socket.getLocalPort();
        }
    }

    private static boolean ip(final String... args) throws IOException, InterruptedException
    {
        final String[] command = new String[args.length + 1];
        command[0] = "ip";
        System.arraycopy(args, 0, command, 1, args.length);
        return new ProcessBuilder(command).redirectErrorStream(true).start().waitFor() == 0;
    }
}
