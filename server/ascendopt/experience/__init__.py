"""experience"""
