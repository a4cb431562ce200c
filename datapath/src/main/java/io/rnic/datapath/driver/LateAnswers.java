package io.rnic.datapath.driver;

import io.rnic.cnc.ControlProtocol;
import io.rnic.verbs.Errno;
import org.agrona.concurrent.ManyToOneConcurrentLinkedQueue;

/**
 * Answers computed off the conductor's thread (address resolution waits for the wire), queued by the threads that
 * computed them and sent from the conductor's, which alone writes the broadcast buffer.
 */
final class LateAnswers
{
    /** A {@code RESOLVE_MAC} answered: its MAC, or why not (the errno 0 when the verbs named none). */
    private record MacResolution(long clientId, long correlationId, long mac, int errno, String refusal)
    {
    }

    private final ManyToOneConcurrentLinkedQueue<MacResolution> resolutions = new ManyToOneConcurrentLinkedQueue<>();
    private final ClientProxy clientProxy;
    private final DriverCounters counters;

    LateAnswers(final ClientProxy clientProxy, final DriverCounters counters)
    {
        this.clientProxy = clientProxy;
        this.counters = counters;
    }

    /** Any thread. */
    void macResolved(final long clientId, final long correlationId, final long mac)
    {
        resolutions.offer(new MacResolution(clientId, correlationId, mac, 0, null));
    }

    /** Any thread: the address did not resolve, as the verbs' {@code errno} (0: none) says. */
    void macRefused(final long clientId, final long correlationId, final int errno, final String message)
    {
        resolutions.offer(new MacResolution(clientId, correlationId, 0, errno, message));
    }

    /** Conductor thread: sends what is queued. */
    int send()
    {
        int work = 0;
        MacResolution late;
        while ((late = resolutions.poll()) != null)
        {
            work++;
            if (late.refusal() == null)
            {
                clientProxy.macResolved(late.clientId(), late.correlationId(), late.mac());
                continue;
            }
            counters.commandErrors.increment();
            final int errno = late.errno();
            clientProxy.error(late.clientId(), late.correlationId(), errno != 0 ? ControlProtocol.ERROR_VERBS :
                ControlProtocol.ERROR_INVALID, errno, (errno != 0 ? Errno.name(errno) + ": " : "") + "resolve_mac: " +
                late.refusal());
        }
        return work;
    }
}
