package io.rnic.tools;

import io.rnic.datapath.port.PacketPort;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A port that tells the test when a tool's engine thread has started on it: the tool has opened its port and
 * started its endpoint, and creates its connection manager next. A test starts the client of an RDMA CM pair then,
 * rather than after a guessed sleep, so that the client's REQ seldom arrives before the server's CM (a REQ that does
 * is lost and sent again after the CM response timeout, 4.3 s: the tests' timeouts allow for that).
 */
public final class EngineStartSignalPort extends ForwardingPacketPort
{
    private final CountDownLatch started = new CountDownLatch(1);

    public EngineStartSignalPort(final PacketPort port)
    {
        super(port);
    }

    @Override
    public void onEngineThreadStart()
    {
        port.onEngineThreadStart();
        started.countDown();
    }

    @Override
    public void onEngineThreadStop()
    {
        port.onEngineThreadStop();
    }

    /** Waits until an engine thread has started on the port; false when none did within the timeout. */
    public boolean awaitEngineStart(final long timeoutMs) throws InterruptedException
    {
        return started.await(timeoutMs, TimeUnit.MILLISECONDS);
    }
}
