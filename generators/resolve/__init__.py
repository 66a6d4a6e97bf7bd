"""Layer 3, resolve: stable numbering, the fabric's links and addresses, the edge's ports and
sessions; every value computed once, from the intent, for the build and the rules alike."""
