"""postrender: content-versioned, immutable ConfigMaps and Secrets for rendered manifests."""

__version__ = "0.1.0"
