package io.rnic.datapath;

import io.rnic.RnicException;
import io.rnic.client.DriverContext;
import io.rnic.datapath.afpacket.AfPacketConfig;
import io.rnic.datapath.afpacket.AfPacketPort;
import io.rnic.datapath.cm.RdmaCm;
import io.rnic.datapath.endpoint.InMemoryContexts;
import io.rnic.shm.SharedMemory;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QpType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * An embedder catches every failure rnic's libraries report as one type, {@link RnicException}: a refused verbs
 * call, a driver that is not there, shared memory that cannot be made, a port that cannot be opened, a connection
 * nobody accepts. Each is made to happen for real here and caught by that one type alone.
 */
class LibraryFailuresTest
{
    @Test
    void shouldCatchEveryKindOfLibraryFailureAsRnicException(@TempDir final Path noDriver)
    {
        final List<String> caught = new ArrayList<>();
        try (InMemoryContexts pair = InMemoryContexts.pair(); Arena arena = Arena.ofConfined())
        {
            final ProtectionDomain pd = pair.first().allocPd();
            caught.add(failure("verbs", () -> pair.first().registerMemoryRegion(pd, arena.allocate(64),
                AccessFlags.REMOTE_WRITE))); // REMOTE_WRITE without LOCAL_WRITE: EINVAL
            caught.add(failure("cnc", () -> DriverContext.open(noDriver)));
            caught.add(failure("shm", () -> SharedMemory.create("rnic-test", -1, false)));
            caught.add(failure("port", () -> AfPacketPort.open(AfPacketConfig.of("rnic-no-such-if0"))));
            try (RdmaCm cm = RdmaCm.open(pair.first()))
            {
                final QpInitAttributes init = new QpInitAttributes().type(QpType.RC).pd(pd)
                    .cqs(pair.first().createCq(4), pair.first().createCq(4));
                caught.add(failure("cm", () -> cm.connect(pair.secondIpv4(), 7471, init, Duration.ofSeconds(10),
                    new byte[0]))); // nobody listens: REJ reason 8
            }
        }
        assertEquals(List.of("verbs: VerbsException", "cnc: CncException", "shm: ShmException",
            "port: PortException", "cm: RdmaCmException"), caught);
    }

    private static String failure(final String what, final Runnable call)
    {
        try
        {
            call.run();
        }
        catch (final RnicException ex)
        {
            assertFalse(ex.getMessage() == null || ex.getMessage().isBlank() || ex.getMessage().contains("\n"),
                what + ": not one line: " + ex.getMessage());
            return what + ": " + ex.getClass().getSimpleName();
        }
        return what + ": no failure";
    }
}
