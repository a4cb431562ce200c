package io.rnic.datapath.endpoint;

import io.rnic.datapath.port.InMemoryPort;
import io.rnic.status.CounterTypes;
import io.rnic.transport.LocalPort;
import io.rnic.transport.TransportCounter;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An endpoint's counters live in one counters manager over buffers it owns: any thread reads them without the
 * engine thread's help, and so could another process that has only the buffers.
 */
class EndpointCountersTest
{
    private static final long MAC_A = 0x02_00_00_00_02_0AL;
    private static final long MAC_B = 0x02_00_00_00_02_0BL;

    private InMemoryPort peer;
    private Endpoint endpoint;

    @BeforeEach
    void start()
    {
        final InMemoryPort[] ports = InMemoryPort.pair(MAC_A, MAC_B, 4096, 1 << 16);
        peer = ports[1];
        final LocalPort local = new LocalPort(MAC_A).ethernetMtu(4096);
        local.addIpv4(0x0A0C_0001);
        endpoint = Endpoint.start(ports[0], local,
            EndpointOptions.defaults().withIdleStrategy("yield").withHoldRocePort(false));
    }

    @AfterEach
    void stop()
    {
        endpoint.close();
        peer.close();
    }

    @Test
    void shouldReportCountersWhileTheEngineThreadIsBusy() throws Exception
    {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        endpoint.addApplication(new Agent()
        {
            public int doWork() throws InterruptedException
            {
                entered.countDown();
                release.await();
                return 0;
            }

            public String roleName()
            {
                return "busy";
            }
        });
        assertTrue(entered.await(10, TimeUnit.SECONDS));
        try
        {
            // an engine command would wait for the duty cycle to end: the counters are read where they are
            final String report = CompletableFuture.supplyAsync(endpoint::countersReport).get(10, TimeUnit.SECONDS);
            assertTrue(report.contains("port receive drops"), report);
            final long sent = CompletableFuture.supplyAsync(
                () -> endpoint.transportCounter(TransportCounter.PACKETS_SENT)).get(10, TimeUnit.SECONDS);
            assertEquals(0, sent);
        }
        finally
        {
            release.countDown();
        }
    }

    @Test
    void shouldHoldThePortAndEngineThreadCountersInTheEndpointsManager() throws Exception
    {
        final UnsafeBuffer frame = new UnsafeBuffer(new byte[60]);
        frame.putShort(12, (short)0x88B5, java.nio.ByteOrder.BIG_ENDIAN); // local experimental: neither IP nor ARP
        assertTrue(peer.transmit(frame, 0, frame.capacity()));
        final long deadlineNs = System.nanoTime() + 10_000_000_000L;
        while (endpoint.agent().framesIgnored() == 0)
        {
            assertTrue(System.nanoTime() < deadlineNs, "the frame was not received:\n" + endpoint.countersReport());
            Thread.onSpinWait();
        }

        final CountersReader reader = new CountersReader(
            endpoint.counters().metaDataBuffer(), endpoint.counters().valuesBuffer());
        assertEquals(1, sum(reader, CounterTypes.PORT, 0), "port frames received");
        assertEquals(1, sum(reader, CounterTypes.ENGINE_AGENT, 0), "frames not for rnic");
        assertEquals(TransportCounter.count(), records(reader, CounterTypes.TRANSPORT));
        assertEquals(5, records(reader, CounterTypes.NEIGHBOUR)); // requests, replies, learned, malformed, heard
        assertTrue(endpoint.countersReport().contains(String.format("  %-36s %,d%n", "port frames received", 1)));
    }

    private static long sum(final CountersReader reader, final int typeId, final int index)
    {
        final long[] sum = new long[1];
        reader.forEach((value, id, label) ->
        {
            if (reader.getCounterTypeId(id) == typeId && reader.metaDataBuffer().getInt(
                CountersReader.metaDataOffset(id) + CountersReader.KEY_OFFSET + CounterTypes.KEY_INDEX_OFFSET) == index)
            {
                sum[0] += value;
            }
        });
        return sum[0];
    }

    private static int records(final CountersReader reader, final int typeId)
    {
        final int[] count = new int[1];
        reader.forEach((value, id, label) -> count[0] += reader.getCounterTypeId(id) == typeId ? 1 : 0);
        return count[0];
    }
}
