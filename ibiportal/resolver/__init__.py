"""The resolver side of the protocol (file 003 §7, §8.2): resolution engine and transports."""
