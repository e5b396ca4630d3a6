"""API plumbing shared by every app (as the ``api`` package of HackSoft's Styleguide-Example):
the base view (``base``), the one exception handler and the HTTP status of each kind of domain
error (``errors``), and the error bodies' serializers (``serializers``)."""
