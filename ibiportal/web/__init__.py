"""Thin Flask layer over the core: blueprints, error handlers, CLI commands."""
from __future__ import annotations

from flask import Flask

from ..application import Application
from ..resolver.registry_service import normalize_service_ibi
from flask_wtf import CSRFProtect

from . import context, edge, host, i18n, limits, log_format, log_redaction, metrics, navigation, security, unread_body
from .auth.views import bp as auth_bp
from ..cli import COMMANDS
from .api import bp as api_bp
from .api.docs import docs_bp as api_docs_bp  # its openapi.json joins api_bp
from .archive.views import bp as archive_bp
from .archive.views import register_service_route as register_archive_service
from .cached_hits import CachedHits
from .service_paths import ServicePaths
from .admin.items import bp as admin_items_bp
from .admin.importing import bp as admin_import_bp
from .admin import bp as admin_bp
from .cite.views import bp as cite_bp
from .convert.views import bp as convert_bp
from .errors import register_errorhandlers
from .health.views import bp as health_bp
from .oai import bp as oai_bp
from .probes import bp as probes_bp
from .identifiers.views import bp as identifiers_bp
from .references.views import bp as references_bp
from .resolve.views import bp as resolve_bp
from .registration.views import bp as registration_bp
from .trace.views import bp as trace_bp
from .urls.views import bp as urls_bp

csrf = CSRFProtect()


def register(app: Flask, built: Application) -> None:
    """Attach the application, every extension, blueprint, error handler and command to ``app``."""
    context.init_app(app, built)
    host.init_app(app)
    security.init_app(app)
    i18n.init_app(app)  # before the blueprints: /language is a fixed rule like theirs
    navigation.init_app(app)
    app.jinja_env.add_extension("jinja2.ext.do")
    edge.init_app(app)  # every query string and form checked as text before any view
    unread_body.init_app(app)  # a body answered unread is read, so gunicorn keeps the connection
    csrf.init_app(app)
    csrf.exempt(api_bp)  # JSON API: no cookies-based session to ride on
    csrf.exempt(registration_bp)  # Archives call it (§7.2), GET only
    csrf.exempt(oai_bp)  # harvesters POST OAI-PMH forms (§3.1.1.2): no session to ride on
    for upload_view in ("upload", "upload_form"):  # they check the token themselves (admin/items.py)
        csrf.exempt(f"ibiportal.web.admin.items.{upload_view}")
    limits.init_app(app)  # rate limits on key checks, logins and the API
    log_redaction.install(app.logger)  # registration keys never reach a log line
    log_format.init_app(app)  # X-Request-ID, and IBIPORTAL_LOG_FORMAT=json
    app.register_blueprint(probes_bp)
    metrics.init_app(app)  # GET /metrics, for IBIPORTAL_METRICS_ALLOW
    app.register_blueprint(oai_bp)  # /oai: the own Archive's OAI-PMH data provider
    app.register_blueprint(identifiers_bp)
    app.register_blueprint(urls_bp)
    app.register_blueprint(auth_bp)
    app.register_blueprint(convert_bp)
    app.register_blueprint(trace_bp)
    app.register_blueprint(cite_bp)
    app.register_blueprint(references_bp)
    app.register_blueprint(admin_bp)
    app.register_blueprint(admin_items_bp)
    app.register_blueprint(admin_import_bp)
    app.register_blueprint(health_bp)
    app.register_blueprint(api_bp)
    app.register_blueprint(api_docs_bp)
    app.register_blueprint(registration_bp)  # fixed rule /<resolver service IBI> (§6.1)
    app.register_blueprint(archive_bp)
    register_archive_service(app)
    # a cached redirect is answered before Flask's dispatch (cached_hits.py), after the service paths' spelling
    app.wsgi_app = ServicePaths(CachedHits(app.wsgi_app, app), [  # type: ignore[method-assign]
        f"/{built.settings.archive_service_ibi}", f"/{normalize_service_ibi(built.settings.resolver_service_ibi)}"])
    app.register_blueprint(resolve_bp)  # its /<path> rule yields to every fixed rule above
    register_errorhandlers(app)
    for command in COMMANDS:
        app.cli.add_command(command)
