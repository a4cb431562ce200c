package io.rnic.datapath.endpoint;

import io.rnic.datapath.afpacket.AfPacketConfig;
import io.rnic.datapath.afpacket.AfPacketPort;
import io.rnic.datapath.afpacket.VethPairAccess;
import io.rnic.datapath.port.PacketPort;
import io.rnic.datapath.port.PortException;
import io.rnic.transport.LocalPort;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** One AF_PACKET endpoint per interface: a second is refused in one line, and a dead holder blocks nothing. */
class InterfaceLockTest
{
    private static final Path LOCK_DIRECTORY = Path.of(InterfaceLock.DIRECTORY_DEFAULT);

    @Test
    void shouldRefuseASecondEndpointOnTheSameInterfaceUntilTheFirstIsClosed() throws Exception
    {
        assumeTrue(VethPairAccess.available(), "needs root to create a veth pair");
        try (VethPairAccess veth = VethPairAccess.create(1500))
        {
            final String iface = veth.a();
            final Path lockFile = LOCK_DIRECTORY.resolve(InterfaceLock.fileName(iface));
            try
            {
                try (Endpoint first = start(iface))
                {
                    final PacketPort secondPort = AfPacketPort.open(AfPacketConfig.of(iface));

                    final PortException refused = assertThrows(PortException.class, () -> start(secondPort, iface));

                    assertEquals("another rnic endpoint already runs on " + iface + " (lock " + lockFile +
                        ", held by pid " + ProcessHandle.current().pid() + "): if it is `bin/rnic driver`, run as its " +
                        "client with --driver /dev/shm/rnic-" + iface + "; otherwise stop it first",
                        refused.getMessage());
                }
                start(iface).close(); // once the first is closed, and again after that one
                start(iface).close();
                start(iface).close();
            }
            finally
            {
                Files.deleteIfExists(lockFile);
            }
        }
    }

    @Test
    void shouldNotBeBlockedByTheLockOfAKilledProcess() throws Exception
    {
        final String iface = "rnlk" + Integer.toString(ThreadLocalRandom.current().nextInt(36 * 36 * 36 * 36), 36);
        final Path lockFile = LOCK_DIRECTORY.resolve(InterfaceLock.fileName(iface));
        final Process holder = new ProcessBuilder(List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
            System.getProperty("java.class.path"), InterfaceLockHolderMain.class.getName(), iface))
            .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try
        {
            final BufferedReader out =
                new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.US_ASCII));
            assertEquals("locked", out.readLine());
            final PortException refused = assertThrows(PortException.class, () -> InterfaceLock.acquire(iface));
            assertTrue(refused.getMessage().contains("held by pid " + holder.pid() + ")"), refused.getMessage());

            holder.destroyForcibly(); // SIGKILL: no close, no finally
            assertTrue(holder.waitFor(30, TimeUnit.SECONDS));
            assertEquals(137, holder.exitValue());

            try (InterfaceLock lock = InterfaceLock.acquire(iface))
            {
                assertEquals(lockFile, lock.path());
                assertEquals(String.valueOf(ProcessHandle.current().pid()), Files.readString(lockFile).trim());
            }
            assertFalse(Files.exists(lockFile), "an endpoint that stops removes its lock file");
        }
        finally
        {
            holder.destroyForcibly();
            holder.waitFor();
            Files.deleteIfExists(lockFile);
        }
    }

    private static Endpoint start(final String iface)
    {
        return start(AfPacketPort.open(AfPacketConfig.of(iface)), iface);
    }

    private static Endpoint start(final PacketPort port, final String iface)
    {
        final LocalPort local = new LocalPort(port.macAddress()).ethernetMtu(port.mtu());
        local.addIpv4(0x0A0E_0001);
        return Endpoint.start(port, local, EndpointOptions.defaults().withIdleStrategy("yield").withHoldRocePort(false));
    }
}
