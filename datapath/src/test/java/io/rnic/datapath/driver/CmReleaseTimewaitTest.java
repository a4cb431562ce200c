package io.rnic.datapath.driver;

import io.rnic.client.DriverContext;
import io.rnic.cm.ConnectionManager;
import io.rnic.datapath.cm.ConnectionSide;
import io.rnic.datapath.cm.RdmaCm;
import io.rnic.datapath.cm.RdmaConnection;
import io.rnic.datapath.cm.RdmaListener;
import io.rnic.transport.RnicEngine;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A released connection behaves the same embedded and through a driver: its QP is destroyed at once (librdmacm's
 * {@code rdma_destroy_qp}), and its QPN stays held by the connection manager until the connection's timewait ends, so
 * that no new QP is numbered like it before then. Run with the releasing side embedded, then a driver's client (the
 * embedded side once kept the QP alive, in the error state, through the timewait).
 */
class CmReleaseTimewaitTest
{
    private static final int PORT = 7481;
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    /** Long enough that the test sees the QPN held whatever the machine's load, short enough to see it end. */
    private static final long TIMEWAIT_NS = 1_000_000_000L;

    private DriverFixture fixture;

    @BeforeEach
    void start() throws Exception
    {
        System.setProperty(ConnectionManager.TIMEWAIT_NS_PROP_NAME, Long.toString(TIMEWAIT_NS)); // both sides' CMs
        fixture = DriverFixture.withTimeoutMs(2_000);
    }

    @AfterEach
    void stop() throws Exception
    {
        System.clearProperty(ConnectionManager.TIMEWAIT_NS_PROP_NAME);
        fixture.close();
    }

    @ParameterizedTest(name = "released by the {0} side")
    @ValueSource(strings = { "embedded", "driver" })
    void shouldDestroyAReleasedConnectionsQpAtOnceAndHoldItsQpnThroughTheTimewait(final String releasing)
        throws Exception
    {
        try (DriverContext client = DriverContext.open(fixture.directory);
            RdmaCm clientCm = RdmaCm.open(client);
            RdmaCm peerCm = RdmaCm.open(fixture.peer))
        {
            final ConnectionSide a = new ConnectionSide(client);
            final ConnectionSide b = new ConnectionSide(fixture.peer);
            final RdmaListener listener = peerCm.listen(PORT);
            final CompletableFuture<RdmaConnection> accepted =
                CompletableFuture.supplyAsync(() -> listener.accept(b.init(), TIMEOUT, new byte[0]));
            final RdmaConnection active = clientCm.connect(DriverFixture.IP_PEER, PORT, a.init(), TIMEOUT, new byte[0]);
            final RdmaConnection passive = accepted.get(10, TimeUnit.SECONDS);
            assertTrue(active.isConnected() && passive.isConnected());

            final boolean embedded = releasing.equals("embedded");
            final RdmaConnection released = embedded ? passive : active;
            final int qpn = released.qp().qpn();
            final RnicEngine engine = (embedded ? fixture.peer.endpoint() : fixture.driver.endpoint()).device()
                .engineFor(qpn);
            released.close();

            assertFalse(engine.hasQp(qpn), "the QP is destroyed when the release returns");
            assertTrue(engine.qps().isHeld(qpn), "its QPN is held through the timewait");
            assertTrue(await(() -> !engine.qps().isHeld(qpn)), "the QPN is free once the timewait is over");
            (embedded ? active : passive).close();
            listener.close();
        }
    }

    private static boolean await(final BooleanSupplier condition)
    {
        final long deadlineNs = System.nanoTime() + TIMEOUT.toNanos();
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() - deadlineNs > 0)
            {
                return false;
            }
            LockSupport.parkNanos(100_000);
        }
        return true;
    }
}
