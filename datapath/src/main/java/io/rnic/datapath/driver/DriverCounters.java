package io.rnic.datapath.driver;

import io.rnic.status.CounterTypes;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;

/** The driver's own counters, in the CnC next to the endpoint's: what clients asked and what it holds for them. */
final class DriverCounters
{
    final AtomicCounter commands;
    final AtomicCounter commandErrors;
    final AtomicCounter clients;
    final AtomicCounter clientTimeouts;
    final AtomicCounter resources;
    final AtomicCounter malformedWorkRequests;
    final AtomicCounter fdMessagesRefused;
    final AtomicCounter clientsGone;
    final AtomicCounter cmListeners;
    final AtomicCounter asyncEventsDropped;
    /** Commands refused for a client quota ({@link ClientQuotas}), one counter per quota. */
    final AtomicCounter quotaQpsRefused;
    final AtomicCounter quotaCqsRefused;
    final AtomicCounter quotaSrqsRefused;
    final AtomicCounter quotaMrsRefused;
    final AtomicCounter quotaRegisteredBytesRefused;
    final AtomicCounter quotaQueueBytesRefused;

    DriverCounters(final CountersManager manager)
    {
        commands = allocate(manager, 0, "driver commands");
        commandErrors = allocate(manager, 1, "driver command errors");
        clients = allocate(manager, 2, "driver clients attached");
        clientTimeouts = allocate(manager, 3, "driver client timeouts");
        resources = allocate(manager, 4, "driver client resources (PDs, MRs, CQs, QPs)");
        malformedWorkRequests = allocate(manager, 5, "driver malformed work requests");
        fdMessagesRefused = allocate(manager, 6, "driver fds.sock messages refused");
        clientsGone = allocate(manager, 7, "driver clients departed without detaching (fds.sock closed)");
        cmListeners = allocate(manager, 8, "driver RDMA CM ports listened on");
        asyncEventsDropped = allocate(manager, 9, "driver async events dropped (a client's ring full)");
        quotaQpsRefused = allocate(manager, 20, "driver refused: a client's QPs (--max-client-qps)");
        quotaCqsRefused = allocate(manager, 21, "driver refused: a client's CQs (--max-client-cqs)");
        quotaSrqsRefused = allocate(manager, 22, "driver refused: a client's SRQs (--max-client-srqs)");
        quotaMrsRefused = allocate(manager, 23, "driver refused: a client's regions (--max-client-mrs)");
        quotaRegisteredBytesRefused =
            allocate(manager, 24, "driver refused: a client's registered bytes (--max-client-mr-bytes)");
        quotaQueueBytesRefused =
            allocate(manager, 25, "driver refused: a client's work queue memory (--max-client-queue-bytes)");
    }

    private static AtomicCounter allocate(final CountersManager manager, final int index, final String label)
    {
        return manager.newCounter(label, CounterTypes.DRIVER, key -> key.putInt(CounterTypes.KEY_INDEX_OFFSET, index));
    }
}
