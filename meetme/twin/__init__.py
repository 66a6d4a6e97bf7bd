"""The digital twin: the site's device models run on FRRouting in network namespaces.

`frr` renders a device model in FRR's own configuration language (a sixth rendering, never a
platform a user selects); `topology` lays out namespaces, veth pairs and the emulated external
parties; `runtime` brings them up and down; `verify` reads the routers' own JSON state.
"""
