package io.rnic.datapath.agent;

import io.rnic.datapath.afpacket.AfPacketConfig;
import io.rnic.datapath.afpacket.AfPacketPort;
import io.rnic.datapath.endpoint.Endpoint;
import io.rnic.datapath.endpoint.EndpointOptions;
import io.rnic.datapath.port.InMemoryPort;
import io.rnic.datapath.port.PacketPort;
import io.rnic.device.ConnectParameters;
import io.rnic.device.EngineQueuePair;
import io.rnic.device.QueuePair;
import io.rnic.transport.LocalPort;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.SendFlags;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WrOpcode;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The engine threads' steady state allocates nothing: receive burst, validation, responder, ACK, completer, timer
 * wheel, transmit and flush — over in-memory ports here, over AF_PACKET on a veth pair and over DPDK ring ports in
 * the classes beside it. Measured with the JVM's per-thread allocation counter on the engine threads only. One
 * port kind per class, each class in a JVM of its own (the build runs allocation tests so): a process uses one
 * port kind, and a JIT profile that has seen several no longer inlines the receive path as it would.
 */
public class EngineThreadAllocationTest
{
    /** Long enough for C2 to compile the whole path, the FFM downcalls' method handles included. */
    private static final int WARMUP_WRITES = 200_000;
    static final int MEASURED_WRITES = 100_000;
    /**
     * Rounds measured until one stays under the limit: on a busy or throttled machine C2 may finish compiling the
     * path (and eliminating its temporary objects) only rounds after the warm-up; seen in CI-like background runs.
     */
    private static final int MEASURED_ROUNDS = 10;
    /** The counter's own granularity (TLAB refills are attributed in chunks): far below one byte per packet. */
    static final long LIMIT_BYTES = 16 * 1024;

    @Test
    void shouldNotAllocateOnEngineThreadsOverInMemoryPorts() throws Exception
    {
        final InMemoryPort[] ports = InMemoryPort.pair(0x02_00_00_00_0A_01L, 0x02_00_00_00_0A_02L, 4096, 1 << 22);
        measure(ports[0], ports[1], port(0x02_00_00_00_0A_01L, 0x0A0C_0001), port(0x02_00_00_00_0A_02L, 0x0A0C_0002),
            0x0A0C_0001, 0x0A0C_0002);
    }

    static LocalPort addressed(final String iface, final int ip) throws Exception
    {
        final long mac = AfPacketPortMac.of(iface);
        final LocalPort port = new LocalPort(mac).ethernetMtu(1500);
        port.addIpv4(ip);
        return port;
    }

    static LocalPort port(final long mac, final int ip)
    {
        final LocalPort port = new LocalPort(mac).ethernetMtu(4096);
        port.addIpv4(ip); // GID index 0
        return port;
    }

    static void measure(
        final PacketPort portA, final PacketPort portB, final LocalPort localA, final LocalPort localB, final int ipA,
        final int ipB) throws Exception
    {
        measure(portA, portB, localA, localB, ipA, ipB, LIMIT_BYTES, 256, PathMtu.MTU_1024);
    }

    /**
     * @param limitBytes   what the least round of {@link #MEASURED_WRITES} writes may allocate on the engine threads.
     * @param messageBytes each WRITE's (at most 4096).
     * @param pathMtu      the QPs'.
     */
    static void measure(
        final PacketPort portA, final PacketPort portB, final LocalPort localA, final LocalPort localB, final int ipA,
        final int ipB, final long limitBytes, final int messageBytes, final PathMtu pathMtu) throws Exception
    {
        final EndpointOptions options = EndpointOptions.defaults().withIdleStrategy("yield").withHoldRocePort(false);
        try (Arena arena = Arena.ofShared();
            Endpoint a = Endpoint.start(portA, localA, options);
            Endpoint b = Endpoint.start(portB, localB, options))
        {
            final ProtectionDomain pdA = a.device().allocPd();
            final ProtectionDomain pdB = b.device().allocPd();
            final CompletionQueue cqA = a.device().createCq(1024);
            final CompletionQueue cqB = b.device().createCq(1024);
            final EngineQueuePair qpA = a.device().createQp(new QpInitAttributes().pd(pdA).cqs(cqA, cqA).capacity(256, 16));
            final EngineQueuePair qpB = b.device().createQp(new QpInitAttributes().pd(pdB).cqs(cqB, cqB).capacity(16, 16));
            final MemoryRegion source = a.device().registerMemoryRegion(pdA, arena.allocate(4096, 4096),
                AccessFlags.LOCAL_WRITE);
            final MemoryRegion target = b.device().registerMemoryRegion(pdB, arena.allocate(4096, 4096),
                AccessFlags.ALL);
            connect(qpA, qpB.qpn(), ipB, localB.mac(), pathMtu);
            connect(qpB, qpA.qpn(), ipA, localA.mac(), pathMtu);

            final SendWorkRequest wr = new SendWorkRequest();
            wr.opcode = WrOpcode.RDMA_WRITE;
            wr.sgl.add(source.address(), messageBytes, source.lKey());
            wr.remoteAddress = target.address();
            wr.rKey = target.rKey();
            final WorkCompletion[] wc = { new WorkCompletion() };
            run(qpA, cqA, wr, wc, WARMUP_WRITES);
            final Thread[] engines = { a.agent().thread(), b.agent().thread() };
            // A per-packet allocation shows in every round; a one-off (a late JIT recompilation running a method
            // in the interpreter for a while, where escape analysis does not apply) shows in one round only.
            final long[] rounds = new long[MEASURED_ROUNDS];
            long least = Long.MAX_VALUE;
            for (int round = 0; round < MEASURED_ROUNDS && least >= limitBytes; round++)
            {
                final long before = allocated(engines);
                run(qpA, cqA, wr, wc, MEASURED_WRITES);
                rounds[round] = allocated(engines) - before;
                least = Math.min(least, rounds[round]);
            }
            assertEquals(0, a.engineErrors() + b.engineErrors());
            assertTrue(least < limitBytes, "engine threads allocated " + java.util.Arrays.toString(rounds) +
                " bytes in rounds of " + MEASURED_WRITES + " writes and their ACKs (requester side " +
                allocated(new Thread[]{ engines[0] }) + ", responder side " + allocated(new Thread[]{ engines[1] }) +
                " bytes in all):\n" + a.countersReport() + "responder side:\n" + b.countersReport());
        }
    }

    /** Posts writes in batches of 32 (the last signaled) and waits for each batch's completion. */
    public static void run(final QueuePair qp, final CompletionQueue cq, final SendWorkRequest wr,
        final WorkCompletion[] wc, final int writes)
    {
        final long deadline = System.nanoTime() + 120_000_000_000L;
        for (int done = 0; done < writes; done += 32)
        {
            for (int i = 0; i < 32; i++)
            {
                wr.sendFlags = i == 31 ? SendFlags.SIGNALED : 0;
                while (qp.postSend(wr) != 0)
                {
                    Thread.onSpinWait();
                }
            }
            while (cq.poll(wc, 1) == 0)
            {
                assertTrue(System.nanoTime() < deadline, "writes stalled");
                Thread.yield();
            }
            assertEquals(WcStatus.SUCCESS, wc[0].status());
        }
    }

    /** Bytes the JVM counted as allocated by these threads so far. */
    public static long allocated(final Thread[] threads)
    {
        final com.sun.management.ThreadMXBean bean =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        long total = 0;
        for (final Thread thread : threads)
        {
            total += bean.getThreadAllocatedBytes(thread.threadId());
        }
        return total;
    }

    private static void connect(final EngineQueuePair qp, final int remoteQpn, final int remoteIp, final long mac,
        final PathMtu pathMtu)
    {
        final ConnectParameters parameters = new ConnectParameters().remote(remoteQpn, 0).localPsn(0).pathMtu(pathMtu);
        parameters.addressVector.destinationIpv4(remoteIp).destinationMac(mac);
        parameters.applyTo(qp);
    }

    /** The MAC of a kernel interface, from sysfs. */
    private static final class AfPacketPortMac
    {
        static long of(final String iface) throws Exception
        {
            final String text = Files.readString(Path.of("/sys/class/net", iface, "address")).trim();
            long mac = 0;
            for (final String part : text.split(":"))
            {
                mac = (mac << 8) | Integer.parseInt(part, 16);
            }
            return mac;
        }
    }
}
