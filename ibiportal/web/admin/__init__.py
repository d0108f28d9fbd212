"""Administrator pages: registered Archives, the conformance check, and the outside resolvers the own Archive joins."""
