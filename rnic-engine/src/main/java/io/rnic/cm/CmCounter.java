package io.rnic.cm;

/** What the connection manager counts: MADs handled, sent and retransmitted, and each reason to drop one. */
public enum CmCounter
{
    MADS_RECEIVED("CM MADs received"),
    MADS_SENT("CM MADs sent"),
    RETRANSMISSIONS("CM MADs retransmitted after their response timeout"),
    DUPLICATES_ANSWERED("duplicate REQ/REP/DREQ answered with our last reply"),
    REJECTS_SENT("REJ sent (no listener, consumer reject, stale connection, or our REQ given up)"),
    REJECTS_RECEIVED("REJ received for a connection of ours (its reason goes to the application)"),
    STALE_REJECTED("REQ rejected as a stale connection: its comm ID or QPN is in our timewait"),
    MRAS_SENT("MRA sent: a REQ the application has not accepted yet was sent again"),
    MRAS_RECEIVED("MRA received: our REQ or REP's response timer extended by its service timeout"),
    DROPPED_TRUNCATED("dropped: datagram shorter than a 256-byte MAD"),
    DROPPED_NOT_CM("dropped: not a CM Send MAD of base version 1, class version 2"),
    DROPPED_UNSUPPORTED("dropped: a CM message we do not implement (LAP, APR, SIDR)"),
    DROPPED_UNKNOWN_CONNECTION("dropped: no connection with the message's communication IDs"),
    DROPPED_BAD_STATE("dropped: message unexpected in the connection's state"),
    DROPPED_BAD_PRIVATE_DATA("dropped: REQ without a valid RDMA CM IP header"),
    DROPPED_UNRESOLVED("dropped: a REQ from an address whose MAC we could not resolve"),
    DROPPED_RECEIVE_ERROR("dropped: receive completion with an error"),
    SEND_ERRORS("GSI send completions with an error"),
    TIMEOUTS("connections given up after their last retry"),
    TIMEWAITS_ENDED("closed connections forgotten at the end of their timewait (their QP destroyed if released)"),
    DREQS_ANSWERED_UNKNOWN("DREQ for a connection no longer held (timewait over) answered with a DREP");

    private final String description;

    CmCounter(final String description)
    {
        this.description = description;
    }

    public String description()
    {
        return description;
    }

    /** Every counter's description, by ordinal: the labels of their records in a counters manager. */
    public static String[] descriptions()
    {
        final CmCounter[] counters = values();
        final String[] descriptions = new String[counters.length];
        for (int i = 0; i < counters.length; i++)
        {
            descriptions[i] = counters[i].description;
        }
        return descriptions;
    }
}
