package io.rnic.tools;

import io.rnic.verbs.QpType;

/**
 * The perftest-style tools, by command name: perftest's {@code ib_*} (latency and bandwidth of one operation) and
 * rdma-core's {@code ibv_*_pingpong}.
 */
public enum ToolKind
{
    WRITE_LAT("write-lat", "ib_write_lat", Operation.WRITE, true),
    WRITE_BW("write-bw", "ib_write_bw", Operation.WRITE, false),
    READ_LAT("read-lat", "ib_read_lat", Operation.READ, true),
    READ_BW("read-bw", "ib_read_bw", Operation.READ, false),
    SEND_LAT("send-lat", "ib_send_lat", Operation.SEND, true),
    SEND_BW("send-bw", "ib_send_bw", Operation.SEND, false),
    ATOMIC_LAT("atomic-lat", "ib_atomic_lat", Operation.ATOMIC, true),
    ATOMIC_BW("atomic-bw", "ib_atomic_bw", Operation.ATOMIC, false),
    RC_PINGPONG("rc-pingpong", "ibv_rc_pingpong", Operation.SEND, true),
    UD_PINGPONG("ud-pingpong", "ibv_ud_pingpong", Operation.SEND, true),
    UC_PINGPONG("uc-pingpong", "ibv_uc_pingpong", Operation.SEND, true),
    SRQ_PINGPONG("srq-pingpong", "ibv_srq_pingpong", Operation.SEND, true);

    /** What one iteration of a tool does on the wire. */
    public enum Operation
    {
        WRITE("RDMA_Write"), READ("RDMA_Read"), SEND("Send"), ATOMIC("Atomic");

        private final String title;

        Operation(final String title)
        {
            this.title = title;
        }

        public String title()
        {
            return title;
        }
    }

    private final String command;
    private final String original;
    private final Operation operation;
    private final boolean latency;

    ToolKind(final String command, final String original, final Operation operation, final boolean latency)
    {
        this.command = command;
        this.original = original;
        this.operation = operation;
        this.latency = latency;
    }

    public String command()
    {
        return command;
    }

    /** The perftest or rdma-core tool this one mirrors. */
    public String original()
    {
        return original;
    }

    public Operation operation()
    {
        return operation;
    }

    public boolean isLatency()
    {
        return latency;
    }

    public boolean isPingpong()
    {
        return this == RC_PINGPONG || this == UD_PINGPONG || this == UC_PINGPONG || this == SRQ_PINGPONG;
    }

    public QpType qpType()
    {
        return switch (this)
        {
            case UD_PINGPONG -> QpType.UD;
            case UC_PINGPONG -> QpType.UC;
            default -> QpType.RC;
        };
    }

    public static ToolKind byCommand(final String command)
    {
        for (final ToolKind kind : values())
        {
            if (kind.command.equals(command))
            {
                return kind;
            }
        }
        return null;
    }
}
