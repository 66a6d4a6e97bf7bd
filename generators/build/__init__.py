"""Layer 4, build: one vendor-neutral device model per device, feature by feature (underlay,
overlay, multihoming, handoff, edge), from the resolved site."""
