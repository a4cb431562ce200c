package io.rnic.verbs;

/** Transport service of a queue pair (RD is not part of RoCEv2 as deployed, and raw QPs are not on RoCEv2). */
public enum QpType
{
    RC,
    UC,
    UD
}
